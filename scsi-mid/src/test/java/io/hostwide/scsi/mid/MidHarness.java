package io.hostwide.scsi.mid;

import io.hostwide.blk.BlkStatus;
import io.hostwide.blk.ReqOp;
import io.hostwide.blk.Request;
import io.hostwide.blk.Submitter;
import io.hostwide.blk.exec.ManualKblockd;
import io.hostwide.scsi.sd.SdCdb;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** A host on a {@link ManualKblockd} with a {@link FakeLld}, one target and LUNs with a minimal upper driver. */
final class MidHarness implements AutoCloseable {
    final ManualKblockd kblockd = new ManualKblockd();
    final FakeLld lld = new FakeLld();
    final ScsiHost host;
    /** userData → completions seen, and the last status. */
    final Map<Long, AtomicInteger> completions = new ConcurrentHashMap<>();
    final Map<Long, BlkStatus> statuses = new ConcurrentHashMap<>();
    final ByteBuffer buf = ByteBuffer.allocate(4096);

    MidHarness(ScsiHostTemplate t) {
        host = new ScsiHost(t, lld, kblockd);
    }

    ScsiDevice addLun(int lun) {
        ScsiDevice d = host.addDevice(host.allocDevice(host.target(0, 0), lun));
        d.info = new DeviceInfo(0, "HOSTWIDE", "FAKE", "1", false, 512, 1 << 20, false,
                0, 0, 0, 0, 0, 0, false, false, 0, true);
        d.attach(new UpperDriver() {
            @Override
            public BlkStatus initCommand(ScsiCmnd cmd, Request rq) {
                byte[] c = cmd.cdb();
                int n = SdCdb.readWrite(c, rq.op() == ReqOp.WRITE, rq.offset() / 512, rq.length() / 512, false, false);
                d.prepare(cmd, c, n, ScsiCmnd.DIR_FROM_DEVICE, rq.buffer(), 0, rq.length());
                return BlkStatus.OK;
            }

            @Override
            public BlkStatus done(ScsiCmnd cmd) {
                if (cmd.result() == 0) {
                    return BlkStatus.OK;
                }
                return cmd.hostByte() == HostByte.DID_TIME_OUT ? BlkStatus.TIMEOUT : BlkStatus.IOERR;
            }
        });
        return d;
    }

    Submitter submitter(ScsiDevice d, int ctx) {
        return d.queue().submitter(ctx);
    }

    void read(Submitter s, long userData) {
        s.submit(ReqOp.READ, userData * 512 % (1 << 20), 512, buf, (ud, st) -> {
            completions.computeIfAbsent(ud, k -> new AtomicInteger()).incrementAndGet();
            statuses.put(ud, st);
        }, userData);
        kblockd.runDue();   // the block layer may have chosen an asynchronous run (dispatch_busy)
    }

    int completed() {
        return completions.size();
    }

    boolean eachExactlyOnce(int n) {
        if (completions.size() != n) {
            return false;
        }
        for (AtomicInteger a : completions.values()) {
            if (a.get() != 1) {
                return false;
            }
        }
        return true;
    }

    /** Advances virtual time in 1 ms steps, running due work. */
    void advanceMillis(long ms) {
        for (long i = 0; i < ms; i++) {
            kblockd.advance(1_000_000L);
        }
    }

    @Override
    public void close() {
        for (ScsiCmnd c = lld.take(); c != null; c = lld.take()) {
            c.doneGood(0);
        }
        kblockd.runDue();
    }
}
