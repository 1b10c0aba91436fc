package io.hostwide.tcm.sbc;

import io.hostwide.tcm.dispatch.Command;
import io.hostwide.tcm.dispatch.CommandDescriptor;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.spi.AsyncBackstore;
import io.hostwide.tcm.spi.SenseReason;
import io.hostwide.tcm.spi.DataPathErrors;

import java.io.IOException;

/** SYNCHRONIZE CACHE 10/16 (SBC-4 §5.26/5.27) and PRE-FETCH 10/16 (§5.9/5.10). */
final class CacheCommands {
    private CacheCommands() {}

    /** Range check, then make every completed write durable (IMMED is honoured by finishing before GOOD). */
    static int synchronizeCache(Command cmd) {
        byte[] cdb = cmd.cdb();
        long lba = BlockCdb.lba(cdb);
        long blocks = BlockCdb.blocks(cdb);
        Device dev = cmd.device();
        if (!BlockCdb.inRange(cmd, lba, blocks)) {
            return CommandDescriptor.DONE;
        }
        if (dev.backstore() instanceof AsyncBackstore async) {
            boolean submitted = async.submitFlush(e -> {
                if (e != null) {
                    DataPathErrors.LOG.report(dev.name(), "SYNCHRONIZE CACHE", -1, -1, e);
                    cmd.fail(SenseReason.ofWriteFailure(e));
                }
                cmd.complete();
            });
            return submitted ? CommandDescriptor.ASYNC : cmd.fail(SenseReason.TASK_SET_FULL);
        }
        try {
            dev.backstore().flush();
        } catch (IOException e) {
            DataPathErrors.LOG.report(dev.name(), "SYNCHRONIZE CACHE", -1, -1, e);
            return cmd.fail(SenseReason.ofWriteFailure(e));
        }
        return CommandDescriptor.DONE;
    }

    /**
     * Range check; CONDITION MET when the blocks are in memory (non-blocking backstores hold everything "in
     * cache"), GOOD otherwise (SBC-4 §5.9: the cache could not be assumed to hold them).
     */
    static int prefetch(Command cmd) {
        byte[] cdb = cmd.cdb();
        long lba = BlockCdb.lba(cdb);
        long blocks = BlockCdb.blocks(cdb);
        Device dev = cmd.device();
        if (!BlockCdb.inRange(cmd, lba, blocks)) {
            return CommandDescriptor.DONE;
        }
        if (!dev.backstore().blocking()) {
            cmd.conditionMet();
        }
        return CommandDescriptor.DONE;
    }
}
