package io.hostwide.tcm;

import io.hostwide.scsi.spec.Asc;
import io.hostwide.scsi.spec.LunAddress;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.scsi.spec.SenseKey;
import io.hostwide.tcm.backstore.RamBackstore;
import io.hostwide.tcm.core.Session;
import io.hostwide.tcm.lu.DeviceAttributes;
import io.hostwide.tcm.lu.UnitAttentionQueue;
import io.hostwide.tcm.spi.Backstore;
import io.hostwide.tcm.spi.TargetCommand;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;

import static io.hostwide.tcm.Harness.cdb;
import static org.assertj.core.api.Assertions.assertThat;

/** Unit attention conditions and their interlocks (SAM-5 §5.14, SPC-4 §5.14, §6.33, §6.39). */
class UnitAttentionTest {
    static final byte[] TUR = cdb(0, 0, 0, 0, 0, 0);

    @Test
    void queueOrdersResetsFirstDeduplicatesAndReportsOnce() {
        UnitAttentionQueue q = new UnitAttentionQueue();
        assertThat(q.isEmpty()).isTrue();
        q.add(Asc.MODE_PARAMETERS_CHANGED);
        q.add(Asc.CAPACITY_DATA_HAS_CHANGED);
        q.add(Asc.MODE_PARAMETERS_CHANGED);
        q.add(Asc.POWER_ON_RESET_OR_BUS_DEVICE_RESET_OCCURRED);
        q.add(Asc.BUS_DEVICE_RESET_FUNCTION_OCCURRED); // a newer reset replaces the older one
        assertThat(q.size()).isEqualTo(3);
        assertThat(q.contains(Asc.CAPACITY_DATA_HAS_CHANGED)).isTrue();
        assertThat(q.contains(Asc.POWER_ON_RESET_OR_BUS_DEVICE_RESET_OCCURRED)).isFalse(); // replaced
        assertThat(q.poll()).isEqualTo(Asc.BUS_DEVICE_RESET_FUNCTION_OCCURRED);
        assertThat(q.poll()).isEqualTo(Asc.MODE_PARAMETERS_CHANGED);
        assertThat(q.remove(Asc.CAPACITY_DATA_HAS_CHANGED)).isTrue();
        assertThat(q.poll()).isEqualTo(-1);
        for (int i = 0; i < 40; i++) {
            q.add(Asc.of(0x3F, i));
        }
        assertThat(q.size()).isEqualTo(16);
        assertThat(q.peek()).isEqualTo(Asc.of(0x3F, 24)); // the oldest were dropped
    }

    /** A fabric's listener hears each condition newly queued for its nexus, once, with the LU it concerns. */
    @Test
    void listenerHearsNewlyQueuedConditionsOfItsNexusOnly() {
        try (Harness h = new Harness()) {
            java.util.List<String> heard = new java.util.concurrent.CopyOnWriteArrayList<>();
            h.session.unitAttentionListener((lun, asc) -> heard.add(lun.mappedLun() + ":" + Integer.toHexString(asc)));
            Session other = h.newSession("iqn.2026-12.io.hostwide:other");
            h.device.broadcastUnitAttention(Asc.CAPACITY_DATA_HAS_CHANGED, null);
            h.device.broadcastUnitAttention(Asc.CAPACITY_DATA_HAS_CHANGED, null); // already queued: not again
            other.lookup(0).unitAttentions().add(Asc.MODE_PARAMETERS_CHANGED); // another nexus
            assertThat(heard).containsExactly("0:2a09");
            h.session.unitAttentionListener(null);
            h.device.broadcastUnitAttention(Asc.INQUIRY_DATA_HAS_CHANGED, null);
            assertThat(heard).containsExactly("0:2a09");
        }
    }

    /**
     * libiscsi Sanitize.Reset polls TEST UNIT READY "until no unit attention" across reconnects; SAM-5 §6.3.1: the
     * power-on condition is established once per initiator port, so a reinstated nexus (same InitiatorName and
     * ISID) does not see it again, while another ISID (another initiator port) does, once.
     */
    @Test
    void powerOnIsReportedOncePerInitiatorPortNotPerReconnect() {
        try (Harness h = new Harness(new DeviceAttributes(), new RamBackstore(1 << 20, 512), true)) {
            String name = "iqn.2026-12.io.hostwide:initiator";
            TestFabric.Result first = h.none(TUR);
            assertThat(first.status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
            assertThat(first.senseKey()).isEqualTo(SenseKey.UNIT_ATTENTION);
            assertThat(first.ascAscq()).isEqualTo(0x2900);
            assertThat(h.none(TUR).status()).isEqualTo(ScsiStatus.GOOD);
            for (int i = 0; i < 3; i++) { // the connection drops, the initiator logs in again with the same ISID
                h.session.close();
                Session again = h.core.openSession(h.port, h.fabric, name, name + ",i,0x000000000001");
                assertThat(h.fabric.run(again, 0, TUR, 0, TargetCommand.DIR_NONE, null).status())
                        .isEqualTo(ScsiStatus.GOOD);
                again.close();
            }
            Session otherIsid = h.core.openSession(h.port, h.fabric, name, name + ",i,0x000000000002");
            TestFabric.Result other = h.fabric.run(otherIsid, 0, TUR, 0, TargetCommand.DIR_NONE, null);
            assertThat(other.ascAscq()).isEqualTo(0x2900);
            assertThat(h.fabric.run(otherIsid, 0, TUR, 0, TargetCommand.DIR_NONE, null).status())
                    .isEqualTo(ScsiStatus.GOOD);
            otherIsid.close();
        }
    }

    @Test
    void reportLunsClearsReportedLunsDataHasChangedOnEveryLun() {
        try (Harness h = new Harness()) {
            h.port.addLun(1, h.core.addDevice("d1", new RamBackstore(1 << 20, 512), new DeviceAttributes()));
            TestFabric.Result rl = h.in(cdb(0xA0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0), 256);
            assertThat(rl.status()).isEqualTo(ScsiStatus.GOOD); // REPORT LUNS is not failed by the UA...
            assertThat(h.none(TUR).status()).isEqualTo(ScsiStatus.GOOD); // ...and cleared it on LUN 0
            TestFabric.Result lun1 = h.fabric.run(h.session, LunAddress.encode(1), TUR, 0,
                    TargetCommand.DIR_NONE, null);
            assertThat(lun1.status()).isEqualTo(ScsiStatus.GOOD); // and on LUN 1
        }
    }

    @Test
    void unrelatedAclChangesDoNotDisturbOtherSessions() {
        try (Harness h = new Harness()) {
            h.port.addAcl("iqn.2026-12.io.hostwide:someone").map(0, 0, false);
            assertThat(h.none(TUR).status()).isEqualTo(ScsiStatus.GOOD);
        }
    }

    @Test
    void inquiryNeitherFailsNorClearsAUnitAttention() {
        try (Harness h = new Harness(new DeviceAttributes(), new RamBackstore(1 << 20, 512), true)) {
            for (int i = 0; i < 3; i++) {
                assertThat(h.in(cdb(0x12, 0, 0, 0, 36, 0), 36).status()).isEqualTo(ScsiStatus.GOOD);
            }
            TestFabric.Result r = h.in(Harness.read10(0, 1), 512);
            assertThat(r.senseKey()).isEqualTo(SenseKey.UNIT_ATTENTION);
            assertThat(r.data()).isEmpty();
        }
    }

    /** A RAM backstore whose capacity can be changed, as a resized file or volume would be. */
    static final class ResizableBackstore implements Backstore {
        final RamBackstore ram = new RamBackstore(1 << 20, 512);
        volatile long blocks = 1024;

        @Override public int blockSize() { return 512; }
        @Override public long blockCount() { return blocks; }
        @Override public boolean blocking() { return false; }
        @Override public void read(long lba, ByteBuffer dst) { ram.read(lba, dst); }
        @Override public void write(long lba, ByteBuffer src, boolean fua) throws java.io.IOException { ram.write(lba, src, fua); }
        @Override public void flush() {}
        @Override public boolean supportsUnmap() { return false; }
        @Override public boolean unmapReturnsZeros() { return true; }
        @Override public void unmap(long lba, long n) {}
        @Override public long provisioningRun(long lba, long max) { return Math.min(max, blocks - lba); }
        @Override public String describe() { return "resizable"; }
        @Override public void close() throws IOException { ram.close(); }
    }

    @Test
    void capacityChangeIsAnnouncedToEveryNexus() {
        ResizableBackstore b = new ResizableBackstore();
        try (Harness h = new Harness(new DeviceAttributes(), b)) {
            Session other = h.newSession("iqn.2026-12.io.hostwide:other");
            b.blocks = 2048;
            h.device.refreshCapacity();
            assertThat(h.none(TUR).ascAscq()).isEqualTo(Asc.CAPACITY_DATA_HAS_CHANGED);
            assertThat(h.fabric.run(other, 0, TUR, 0, TargetCommand.DIR_NONE, null).ascAscq())
                    .isEqualTo(Asc.CAPACITY_DATA_HAS_CHANGED);
            assertThat(h.in(Harness.read10(2047, 1), 512).status()).isEqualTo(ScsiStatus.GOOD);
            h.device.refreshCapacity(); // unchanged: nothing queued
            assertThat(h.none(TUR).status()).isEqualTo(ScsiStatus.GOOD);
        }
    }
}
