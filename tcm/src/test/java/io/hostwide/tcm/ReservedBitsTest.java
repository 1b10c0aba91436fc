package io.hostwide.tcm;

import io.hostwide.scsi.spec.Asc;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.scsi.spec.SenseData;
import io.hostwide.tcm.dispatch.CommandDescriptor;
import io.hostwide.tcm.dispatch.CommandTable;
import io.hostwide.tcm.lu.DeviceAttributes;
import io.hostwide.tcm.spi.TargetCommand;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every reserved bit of every implemented CDB, one at a time: INVALID FIELD IN CDB with the field pointer naming
 * exactly that byte and bit (SPC-4 §4.5.2.4.2), and nothing executed. Then allocation length sweeps for the
 * commands not covered elsewhere.
 */
class ReservedBitsTest {

    @Test
    void everyReservedBitOfEveryCommandIsRejectedWithItsFieldPointer() {
        try (Harness h = new Harness(new DeviceAttributes().thinProvisioning(true))) {
            int checked = 0;
            for (CommandDescriptor d : h.core.commandTable(h.device).all()) {
                int control = CommandTable.controlIndex(d);
                for (int b = 1; b < d.cdbLength(); b++) {
                    int reserved = b == control ? 0x3F : ~d.usage()[b] & 0xFF;
                    for (int bit = 0; bit < 8; bit++) {
                        if ((reserved & 1 << bit) == 0) {
                            continue;
                        }
                        byte[] cdb = new byte[d.cdbLength()];
                        cdb[0] = (byte) d.opcode();
                        if (d.hasServiceAction()) {
                            cdb[1] = (byte) d.serviceAction();
                        }
                        cdb[b] |= (byte) (1 << bit);
                        TestFabric.Result r = h.fabric.run(h.session, 0, cdb, 0, TargetCommand.DIR_NONE, null);
                        assertThat(r.status()).as("%s byte %d bit %d", d.name(), b, bit).isEqualTo(ScsiStatus.CHECK_CONDITION);
                        assertThat(r.ascAscq()).as("%s byte %d bit %d", d.name(), b, bit).isEqualTo(Asc.INVALID_FIELD_IN_CDB);
                        assertThat(r.fieldPointer()).as("%s byte %d bit %d", d.name(), b, bit)
                                .isEqualTo(SenseData.fieldPointer(true, b, bit));
                        checked++;
                    }
                }
            }
            assertThat(checked).isGreaterThan(500);
        }
    }

    @Test
    void requestSenseAllocationLengths() {
        try (Harness h = new Harness()) {
            for (int alloc = 0; alloc < 256; alloc++) {
                TestFabric.Result r = h.in(Harness.cdb(0x03, 0, 0, 0, alloc, 0), alloc);
                assertThat(r.status()).isEqualTo(ScsiStatus.GOOD);
                assertThat(r.data()).hasSize(Math.min(alloc, 18));
                TestFabric.Result d = h.in(Harness.cdb(0x03, 1, 0, 0, alloc, 0), alloc);
                assertThat(d.data()).hasSize(Math.min(alloc, 8));
            }
        }
    }

    @Test
    void readDefectDataAndModeSense10AllocationLengths() {
        try (Harness h = new Harness()) {
            for (int alloc = 0; alloc < 300; alloc += 7) {
                assertThat(h.in(Harness.cdb(0x37, 0, 0, 0, 0, 0, 0, alloc >>> 8, alloc & 0xFF, 0), alloc).data())
                        .hasSize(Math.min(alloc, 4));
                assertThat(h.in(Harness.cdb(0xB7, 0, 0, 0, 0, 0, 0, 0, alloc >>> 8, alloc & 0xFF, 0, 0), alloc).data())
                        .hasSize(Math.min(alloc, 8));
                TestFabric.Result ms = h.in(Harness.cdb(0x5A, 0, 0x3F, 0, 0, 0, 0, alloc >>> 8, alloc & 0xFF, 0), alloc);
                assertThat(ms.status()).isEqualTo(ScsiStatus.GOOD);
                assertThat(ms.data().length).isLessThanOrEqualTo(alloc);
            }
            // a large allocation length with a small expected length: truncated to the transport's length
            TestFabric.Result big = h.in(Harness.cdb(0x12, 0, 0, 0xFF, 0xFF, 0), 40);
            assertThat(big.data()).hasSize(40);
            assertThat(big.residualKind()).isEqualTo(TargetCommand.RESIDUAL_OVERFLOW);
            assertThat(big.residualCount()).isEqualTo(96 - 40);
        }
    }
}
