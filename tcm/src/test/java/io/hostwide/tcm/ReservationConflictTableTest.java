package io.hostwide.tcm;

import io.hostwide.scsi.spec.ScsiStatus;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static io.hostwide.tcm.Harness.cdb;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * SPC-4 §5.13.1 Table 63 as the reservation gate applies it: for every reservation type, what a registered and an
 * unregistered non-holder may do (libiscsi ProutReserve.Access* expectations for READ/WRITE), and that the holder
 * may do everything. Commands that conflict change nothing.
 */
class ReservationConflictTableTest {
    static final long HOLDER_KEY = 0xABCDL;
    static final long OTHER_KEY = 0x1234L;

    //          type, registered read, registered write, unregistered read, unregistered write
    @ParameterizedTest(name = "type {0}")
    @CsvSource({
            "1, true,  false, true,  false",  // Write Exclusive
            "3, false, false, false, false",  // Exclusive Access
            "5, true,  true,  true,  false",  // Write Exclusive - Registrants Only
            "6, true,  true,  false, false",  // Exclusive Access - Registrants Only
            "7, true,  true,  true,  false",  // Write Exclusive - All Registrants
            "8, true,  true,  false, false",  // Exclusive Access - All Registrants
    })
    void accessByType(int type, boolean regRead, boolean regWrite, boolean unregRead, boolean unregWrite) {
        try (Harness h = new Harness()) {
            Nexus holder = Nexus.first(h);
            Nexus other = Nexus.open(h, "iqn.2026-12.io.hostwide:other");
            holder.registerIgnore(HOLDER_KEY);
            other.registerIgnore(OTHER_KEY);
            assertThat(holder.reserve(HOLDER_KEY, type).status()).isEqualTo(ScsiStatus.GOOD);

            byte[] block = Harness.pattern(512, type);
            assertThat(holder.out(Harness.write10(1, 1), block).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(holder.in(Harness.read10(1, 1), 512).status()).isEqualTo(ScsiStatus.GOOD);

            check(other, regRead, regWrite, block);
            assertThat(other.register(OTHER_KEY, 0).status()).isEqualTo(ScsiStatus.GOOD);
            check(other, unregRead, unregWrite, block);
            assertThat(holder.in(Harness.read10(1, 1), 512).data()).as("rejected writes changed nothing")
                    .isEqualTo(block);
        }
    }

    private static void check(Nexus n, boolean read, boolean write, byte[] block) {
        int readStatus = read ? ScsiStatus.GOOD : ScsiStatus.RESERVATION_CONFLICT;
        int writeStatus = write ? ScsiStatus.GOOD : ScsiStatus.RESERVATION_CONFLICT;
        assertThat(n.in(Harness.read10(1, 1), 512).status()).isEqualTo(readStatus);
        // MODE SENSE is a READ-rule command, SYNCHRONIZE CACHE a WRITE-rule one
        assertThat(n.in(cdb(0x1A, 0, 0x3F, 0, 255, 0), 255).status()).isEqualTo(readStatus);
        assertThat(n.none(cdb(0x35, 0, 0, 0, 0, 0, 0, 0, 0, 0)).status()).isEqualTo(writeStatus);
        assertThat(n.out(Harness.write10(1, 1), write ? block : new byte[512]).status()).isEqualTo(writeStatus);
        // always allowed: INQUIRY, REPORT LUNS, TEST UNIT READY, READ CAPACITY, PR IN; PREVENT ALLOW with PREVENT 0
        assertThat(n.in(cdb(0x12, 0, 0, 0, 36, 0), 36).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(n.in(cdb(0xA0, 0, 0, 0, 0, 0, 0, 0, 0, 64, 0, 0), 64).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(n.none(cdb(0, 0, 0, 0, 0, 0)).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(n.in(cdb(0x25, 0, 0, 0, 0, 0, 0, 0, 0, 0), 8).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(n.prin(0).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(n.none(cdb(0x1E, 0, 0, 0, 0, 0)).status()).isEqualTo(ScsiStatus.GOOD);
    }
}
