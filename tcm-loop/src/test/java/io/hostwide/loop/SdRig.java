package io.hostwide.loop;

import io.hostwide.blk.exec.Kblockds;
import io.hostwide.scsi.mid.EhResult;
import io.hostwide.scsi.mid.HostByte;
import io.hostwide.scsi.mid.LowLevelDriver;
import io.hostwide.scsi.mid.ScsiCmnd;
import io.hostwide.scsi.mid.ScsiDevice;
import io.hostwide.scsi.mid.ScsiHost;
import io.hostwide.scsi.mid.ScsiHostTemplate;
import io.hostwide.scsi.mid.ScsiScanner;
import io.hostwide.scsi.mid.ScsiTarget;
import io.hostwide.scsi.sd.DiscardMode;
import io.hostwide.scsi.sd.ScsiDisk;
import io.hostwide.scsi.spec.FixedSense;
import io.hostwide.scsi.spec.ScsiOpcode;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.tcm.core.CoreConfig;
import io.hostwide.tcm.core.Session;
import io.hostwide.tcm.TargetCore;
import io.hostwide.tcm.backstore.RamBackstore;
import io.hostwide.tcm.lu.DeviceAttributes;
import io.hostwide.tcm.port.TargetPort;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Predicate;

/**
 * One loop-attached disk with chosen target attributes, whose HBA driver records every CDB block I/O sends (the
 * CDB-level view of what sd made of a block request) and can fail chosen commands with a sense key.
 */
final class SdRig implements AutoCloseable {
    final TargetCore core = new TargetCore(CoreConfig.defaults());
    final CompletionTimers timer = new CompletionTimers("sdrig", 1);
    final Recording lld;
    final Session session;
    final ScsiHost host;
    final ScsiDisk disk;

    SdRig(DeviceAttributes attrs, long sizeBytes, int blockSize) {
        this(attrs, sizeBytes, blockSize, template(), false);
    }

    static ScsiHostTemplate template() {
        return new ScsiHostTemplate().canQueue(64).cmdPerLun(64).maxId(1).maxLun(1).maxSectors(65535);
    }

    /** @param hideDpoFua clear DPOFUA in MODE SENSE answers during the scan, as a device without FUA reports */
    SdRig(DeviceAttributes attrs, long sizeBytes, int blockSize, ScsiHostTemplate tpl, boolean hideDpoFua) {
        Session[] sessions = new Session[1];
        LoopLld loop = new LoopLld("sdrig", core.taskManagement(), sessions, 0, 0, 0, 0, new ErrorInjector(0, 0),
                timer);
        io.hostwide.tcm.port.ScsiTarget t = core.addTarget("naa.hostwide.sdrig");
        TargetPort port = core.addPort(t, 1, loop.protocolIdentifier());
        port.addLun(0, core.addDevice("sdrig0", new RamBackstore(sizeBytes, blockSize), attrs));
        port.demoMode(true, false);
        session = core.openSession(port, loop, "naa.hostwide.sdrig.i", "naa.hostwide.sdrig.i,i,0x0");
        sessions[0] = session;
        lld = new Recording(loop);
        lld.hideDpoFua = hideDpoFua;
        host = new ScsiHost(tpl, lld, Kblockds.shared());
        List<ScsiDevice> found = new ScsiScanner(host).scanHost();
        disk = new ScsiDisk(found.get(0), false, false, DiscardMode.AUTO);
    }

    @Override
    public void close() {
        disk.close();
        host.close();
        timer.close();
        session.close();
        core.close();
    }

    /** The recording HBA driver: block-I/O CDBs in issue order; failures injected by predicate. */
    static final class Recording implements LowLevelDriver {
        private final LoopLld loop;
        private final List<byte[]> cdbs = new ArrayList<>();
        /** Commands for which this returns true complete with CHECK CONDITION {@link #failKey}/{@link #failAsc}. */
        volatile Predicate<ScsiCmnd> fail = c -> false;
        volatile int failKey;
        volatile int failAsc;
        volatile boolean hideDpoFua;

        Recording(LoopLld loop) {
            this.loop = loop;
        }

        @Override
        public String name() {
            return "sdrig";
        }

        @Override
        public int queueCommand(ScsiCmnd cmd) {
            if (!cmd.isInternal()) {
                synchronized (cdbs) {
                    cdbs.add(Arrays.copyOf(cmd.cdb(), cmd.cdbLength()));
                }
                if (fail.test(cmd)) {
                    byte[] s = new byte[FixedSense.LENGTH];
                    FixedSense.encode(s, failKey, failAsc, false, 0, -1);
                    cmd.done(HostByte.DID_OK, ScsiStatus.CHECK_CONDITION, s, 0, s.length, cmd.transferLength());
                    return OK;
                }
            }
            int rc = loop.queueCommand(cmd);
            int op = cmd.opcode();
            if (hideDpoFua && cmd.isInternal() && (op == ScsiOpcode.MODE_SENSE_10 || op == ScsiOpcode.MODE_SENSE_6)) {
                // The loop completes inline (no delay): the answer is in the buffer and the scanner reads it after
                // this returns, so the device-specific parameter can be edited here.
                int at = cmd.bufferPosition() + (op == ScsiOpcode.MODE_SENSE_10 ? 3 : 2);
                cmd.buffer().put(at, (byte) (cmd.buffer().get(at) & ~0x10));
            }
            return rc;
        }

        /** Every CDB block I/O sent so far. */
        List<byte[]> cdbs() {
            synchronized (cdbs) {
                return new ArrayList<>(cdbs);
            }
        }

        void clear() {
            synchronized (cdbs) {
                cdbs.clear();
            }
        }

        @Override
        public EhResult ehAbort(ScsiCmnd cmd) {
            return loop.ehAbort(cmd);
        }

        @Override
        public EhResult ehDeviceReset(ScsiDevice sdev) {
            return loop.ehDeviceReset(sdev);
        }

        @Override
        public EhResult ehTargetReset(ScsiTarget starget) {
            return loop.ehTargetReset(starget);
        }

        @Override
        public EhResult ehHostReset(ScsiHost h) {
            return loop.ehHostReset(h);
        }
    }
}
