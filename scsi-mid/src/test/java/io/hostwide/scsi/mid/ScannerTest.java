package io.hostwide.scsi.mid;

import io.hostwide.blk.exec.ManualKblockd;
import io.hostwide.scsi.spec.BigEndian;
import io.hostwide.scsi.spec.FixedSense;
import io.hostwide.scsi.spec.LunAddress;
import io.hostwide.scsi.spec.ScsiOpcode;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.scsi.spec.SenseKey;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Scanning against a scripted target: REPORT LUNS lists LUNs 0 and 3; READ CAPACITY(16) is refused so (10) is
 * used; the first READ CAPACITY meets a power-on unit attention; VPD B0h limits are picked up; MODE SENSE(10) is
 * refused so the caching page comes from MODE SENSE(6).
 */
class ScannerTest {

    /** A target answering from byte tables; target id 1 does not exist. */
    static final class ScriptedTarget implements LowLevelDriver {
        final AtomicInteger rc16 = new AtomicInteger();
        final AtomicInteger rc10 = new AtomicInteger();
        private boolean powerOnUaPending = true;

        @Override
        public String name() {
            return "scripted";
        }

        @Override
        public synchronized int queueCommand(ScsiCmnd cmd) {
            if (cmd.device().target().id() != 0) {
                cmd.done(HostByte.DID_BAD_TARGET, 0, null, 0, 0, cmd.transferLength());
                return OK;
            }
            int lun = cmd.device().lun();
            byte[] c = cmd.cdb();
            switch (cmd.opcode()) {
                case ScsiOpcode.INQUIRY -> inquiry(cmd, lun, (c[1] & 1) != 0, c[2] & 0xFF);
                case ScsiOpcode.REPORT_LUNS -> {
                    byte[] d = new byte[32];
                    BigEndian.put32(d, 0, 24);
                    BigEndian.put64(d, 8, LunAddress.encode(0));
                    BigEndian.put64(d, 16, LunAddress.encode(3));
                    BigEndian.put64(d, 24, LunAddress.encode(5));
                    respond(cmd, d);
                }
                case ScsiOpcode.SERVICE_ACTION_IN_16 -> {
                    rc16.incrementAndGet();
                    sense(cmd, SenseKey.ILLEGAL_REQUEST, 0x2000);
                }
                case ScsiOpcode.READ_CAPACITY_10 -> {
                    rc10.incrementAndGet();
                    if (powerOnUaPending) {
                        powerOnUaPending = false;
                        sense(cmd, SenseKey.UNIT_ATTENTION, 0x2900);
                        return OK;
                    }
                    byte[] d = new byte[8];
                    BigEndian.put32(d, 0, lun == 0 ? 0x1FFF : 0x7FFF);
                    BigEndian.put32(d, 4, 512);
                    respond(cmd, d);
                }
                case ScsiOpcode.MODE_SENSE_6 -> {
                    // MODE SENSE(10) is refused (default below); (6): header, no block descriptor, caching page.
                    // LUN 0: WCE off, DPOFUA on; LUN 3: WCE on, no DPOFUA.
                    byte[] d = new byte[4 + 20];
                    d[0] = (byte) (d.length - 1);
                    d[2] = (byte) (lun == 0 ? 0x10 : 0);
                    d[4] = 0x08;
                    d[5] = 18;
                    d[6] = (byte) (lun == 0 ? 0 : 0x04);
                    respond(cmd, d);
                }
                default -> sense(cmd, SenseKey.ILLEGAL_REQUEST, 0x2000);
            }
            return OK;
        }

        private void inquiry(ScsiCmnd cmd, int lun, boolean evpd, int page) {
            byte[] d = new byte[64];
            if (lun == 5 && !evpd) {
                d[0] = 0x0C;   // a storage array controller (as tgtd's LUN 0): connected, not a disk
                d[4] = 31;
                System.arraycopy("VENDOR  CONTROLLER      0001".getBytes(), 0, d, 8, 28);
                respond(cmd, d);
                return;
            }
            if (lun != 0 && lun != 3) {
                d[0] = 0x7F;   // peripheral qualifier 3: no LUN here
                respond(cmd, d);
                return;
            }
            if (!evpd) {
                d[4] = 31;
                System.arraycopy("VENDOR  PRODUCT         0001".getBytes(), 0, d, 8, 28);
            } else if (page == 0x00) {
                d[3] = 2;
                d[4] = 0x00;
                d[5] = (byte) 0xB0;
            } else if (page == 0xB0) {
                d[1] = (byte) 0xB0;
                BigEndian.put16(d, 2, 0x3C);
                BigEndian.put32(d, 8, 128);
                BigEndian.put32(d, 12, 16);
            } else {
                sense(cmd, SenseKey.ILLEGAL_REQUEST, 0x2400);
                return;
            }
            respond(cmd, d);
        }

        private static void respond(ScsiCmnd cmd, byte[] d) {
            int n = Math.min(d.length, cmd.transferLength());
            ByteBuffer b = cmd.buffer();
            b.put(cmd.bufferPosition(), d, 0, n);
            cmd.doneGood(cmd.transferLength() - n);
        }

        private static void sense(ScsiCmnd cmd, int key, int ascAscq) {
            byte[] s = new byte[FixedSense.LENGTH];
            FixedSense.encode(s, key, ascAscq, false, 0, -1);
            cmd.done(HostByte.DID_OK, ScsiStatus.CHECK_CONDITION, s, 0, s.length, cmd.transferLength());
        }
    }

    @Test
    void reportLunsInquiryReadCapacityFallbackAndBlockLimits() {
        ScriptedTarget lld = new ScriptedTarget();
        ScsiHost host = new ScsiHost(new ScsiHostTemplate().maxId(2).maxLun(8), lld, new ManualKblockd());
        List<ScsiDevice> found = new ScsiScanner(host).scanHost();
        assertThat(found).extracting(ScsiDevice::lun).containsExactly(0, 3, 5);
        // A connected LUN of another type is kept with its INQUIRY data only (no capacity read): no disk for it.
        assertThat(found.get(2).info().peripheralType()).isEqualTo(0x0C);
        assertThat(found.get(2).info().product()).isEqualTo("CONTROLLER");
        assertThat(found.get(2).info().capacityBlocks()).isZero();
        DeviceInfo lun0 = found.get(0).info();
        assertThat(lun0.capacityBlocks()).isEqualTo(0x2000);
        assertThat(lun0.logicalBlockSize()).isEqualTo(512);
        assertThat(lun0.vendor()).isEqualTo("VENDOR");
        assertThat(lun0.product()).isEqualTo("PRODUCT");
        assertThat(lun0.maxTransferBlocks()).isEqualTo(128);
        assertThat(lun0.optimalTransferBlocks()).isEqualTo(16);
        assertThat(lun0.thinProvisioned()).isFalse();
        assertThat(found.get(1).info().capacityBlocks()).isEqualTo(0x8000);
        // Caching page through MODE SENSE(6) after (10) was refused: WCE and DPOFUA per LUN.
        assertThat(lun0.writeCache()).isFalse();
        assertThat(lun0.dpoFua()).isTrue();
        assertThat(found.get(1).info().writeCache()).isTrue();
        assertThat(found.get(1).info().dpoFua()).isFalse();
        assertThat(lld.rc16.get()).as("READ CAPACITY(16) tried first for each LUN").isEqualTo(2);
        assertThat(lld.rc10.get()).as("(10) per LUN, plus the retry after the unit attention").isEqualTo(3);
        assertThat(host.devices()).hasSize(3);
        assertThat(found.get(0).state()).isEqualTo(DeviceState.RUNNING);
        host.close();
    }
}
