package io.hostwide.tcm;

import io.hostwide.scsi.spec.BigEndian;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.tcm.backstore.rbd.CephTestCluster;
import io.hostwide.tcm.backstore.rbd.Rbd;
import io.hostwide.tcm.backstore.rbd.RbdConfig;
import io.hostwide.tcm.lu.PrType;
import io.hostwide.tcm.spi.ReservationStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * ALL_TG_PT and REGISTER AND MOVE across two gateways whose target ports have different relative target port
 * identifiers (gateway A: 1, gateway B: 2, as port groups 1 and 2 give them), sharing the LU's reservations through
 * {@code RadosReservationStore} on the test cluster (issue 16): a registration made through A with ALL_TG_PT
 * registers the initiator port's nexus through B's port too, and READ FULL STATUS on either gateway lists it on both
 * ports; REGISTER AND MOVE from A names B's port and B's nexus then holds the reservation.
 */
@ExtendWith(CephTestCluster.class)
class RadosCrossGatewayPrTest {
    static final long K1 = 0x1111_2222_3333_4444L;
    static final long K2 = 0x5555_6666_7777_8888L;
    static final String I1 = "iqn.2026-12.io.hostwide:one";
    static final String I2 = "iqn.2026-12.io.hostwide:two";

    private final List<Rbd.SharedReservationStore> stores = new ArrayList<>();

    private ReservationStore store(CephTestCluster c, String image) throws Exception {
        Rbd.SharedReservationStore s = Rbd.openReservationStore(RbdConfig.of(c.conf(), "rbd", image));
        stores.add(s);
        return s;
    }

    @AfterEach
    void closeStores() { stores.forEach(Rbd.SharedReservationStore::close); }

    /** One READ FULL STATUS descriptor (SPC-4 §6.15.5 Table 167). */
    record Descriptor(long key, boolean allTgPt, boolean holder, int rtpi, String initiator) {}

    static List<Descriptor> fullStatus(byte[] d) {
        List<Descriptor> out = new ArrayList<>();
        int end = 8 + (int) BigEndian.u32(d, 4);
        for (int p = 8; p < end; ) {
            int tid = (int) BigEndian.u32(d, p + 20);
            int nameLen = BigEndian.u16(d, p + 24 + 2);
            String name = new String(d, p + 28, nameLen, StandardCharsets.UTF_8).replace("\0", "");
            out.add(new Descriptor(BigEndian.s64(d, p), (d[p + 12] & 0x02) != 0, (d[p + 12] & 0x01) != 0,
                    BigEndian.u16(d, p + 18), name));
            p += 24 + tid;
        }
        return out;
    }

    @Test
    void anAllTargetPortsRegistrationThroughARegistersThePathThroughB(CephTestCluster c) throws Exception {
        String image = c.createImage("prall", 8);
        try (Gateway ga = new Gateway(store(c, image), "A", 1); Gateway gb = new Gateway(store(c, image), "B", 2)) {
            Gateway.Path viaA = ga.open(I1);
            Gateway.Path viaB = gb.open(I1);
            assertThat(ga.port.relativePortId()).isNotEqualTo(gb.port.relativePortId());
            assertThat(viaA.prout(0, 0, 0, K1, 0x04).status()).isEqualTo(ScsiStatus.GOOD); // ALL_TG_PT
            byte[] fromB = Nexus.ok(viaB.prin(3)).data();
            assertThat(fullStatus(fromB)).as("the initiator port through each gateway's port, ALL_TG_PT")
                    .extracting(Descriptor::rtpi).containsExactly(1, 2);
            assertThat(fullStatus(fromB)).allSatisfy(x -> {
                assertThat(x.key()).isEqualTo(K1);
                assertThat(x.allTgPt()).isTrue();
                assertThat(x.initiator()).startsWith(I1);
            });
            assertThat(viaB.reserve(K1, PrType.EXCLUSIVE_ACCESS).status())
                    .as("the nexus through B is registered: it may reserve").isEqualTo(ScsiStatus.GOOD);
            assertThat(viaA.write().status()).as("the same registration: a holder through A as well")
                    .isEqualTo(ScsiStatus.GOOD);
            assertThat(gb.open(I2).write().status()).isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
            assertThat(Nexus.ok(viaA.prin(3)).data()).as("READ FULL STATUS the same on both gateways")
                    .isEqualTo(Nexus.ok(viaB.prin(3)).data());
        }
    }

    @Test
    void registerAndMoveFromAToAPortOfBMovesTheReservationToBsNexus(CephTestCluster c) throws Exception {
        String image = c.createImage("prmove", 8);
        try (Gateway ga = new Gateway(store(c, image), "A", 1); Gateway gb = new Gateway(store(c, image), "B", 2)) {
            Gateway.Path a = ga.open(I1);
            Gateway.Path b = gb.open(I2);
            assertThat(a.register(0, K1).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(a.reserve(K1, PrType.WRITE_EXCLUSIVE).status()).isEqualTo(ScsiStatus.GOOD);
            byte[] p = registerAndMove(K1, K2, gb.port.relativePortId(), b.session().initiatorPortName());
            assertThat(a.out(Nexus.proutCdb(7, PrType.WRITE_EXCLUSIVE, p.length), p).status())
                    .isEqualTo(ScsiStatus.GOOD);
            byte[] r = Nexus.ok(a.prin(1)).data();
            assertThat(BigEndian.s64(r, 8)).as("READ RESERVATION on A: the moved key").isEqualTo(K2);
            assertThat(b.write().status()).as("B's nexus holds it").isEqualTo(ScsiStatus.GOOD);
            assertThat(a.write().status()).isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
            byte[] fromA = Nexus.ok(a.prin(3)).data();
            assertThat(fromA).as("READ FULL STATUS the same on both gateways").isEqualTo(Nexus.ok(b.prin(3)).data());
            List<Descriptor> full = fullStatus(fromA);
            assertThat(full).as("A's registration went with UNREG; B's nexus, on B's port, holds").hasSize(1);
            assertThat(full.get(0)).extracting(Descriptor::key, Descriptor::allTgPt, Descriptor::holder, Descriptor::rtpi)
                    .containsExactly(K2, false, true, 2);
            assertThat(full.get(0).initiator()).startsWith(I2);
        }
    }

    /** REGISTER AND MOVE parameter data (SPC-4 Table 175) with UNREG and an iSCSI initiator port TransportID. */
    static byte[] registerAndMove(long key, long saKey, int rtpi, String initiatorPort) {
        byte[] name = initiatorPort.getBytes(StandardCharsets.UTF_8);
        int tidLen = 4 + Math.max(20, (name.length + 1 + 3) & ~3);
        byte[] p = new byte[24 + tidLen];
        BigEndian.put64(p, 0, key);
        BigEndian.put64(p, 8, saKey);
        p[17] = 0x02; // UNREG
        BigEndian.put16(p, 18, rtpi);
        BigEndian.put32(p, 20, tidLen);
        p[24] = 0x45; // FORMAT CODE 01b (initiator port), PROTOCOL IDENTIFIER 5h (iSCSI)
        BigEndian.put16(p, 26, tidLen - 4);
        System.arraycopy(name, 0, p, 28, name.length);
        return p;
    }
}
