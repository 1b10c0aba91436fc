package io.hostwide.tcm;

import io.hostwide.scsi.spec.SenseData;
import io.hostwide.scsi.spec.TaskAttribute;
import io.hostwide.tcm.core.Session;
import io.hostwide.tcm.spi.Fabric;
import io.hostwide.tcm.spi.SenseReason;
import io.hostwide.tcm.spi.TargetCommand;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * In-process fabric for byte-level tests: raw CDB bytes in, status + sense + data + residual out. Completion may
 * arrive on any thread; {@link #run} waits for it.
 */
public final class TestFabric implements Fabric {
    private final ConcurrentHashMap<Long, CompletableFuture<Result>> pending = new ConcurrentHashMap<>();
    private long nextTag;

    /** What came back for one command. */
    public record Result(int status, byte[] sense, byte[] data, int residualKind, int residualCount, SenseReason reason) {
        public int senseKey() { return sense.length == 0 ? -1 : SenseData.senseKey(sense); }

        public int ascAscq() { return sense.length == 0 ? -1 : SenseData.ascAscq(sense); }

        public int fieldPointer() { return SenseData.senseKeySpecific(sense, sense.length); }

        public long information() { return SenseData.information(sense, sense.length); }

        @Override
        public String toString() {
            return String.format("status=%02x key=%x asc=%04x data=%d resid=%d/%d %s", status, senseKey(), ascAscq(),
                    data.length, residualKind, residualCount, reason);
        }
    }

    @Override
    public int protocolIdentifier() { return 5; }

    @Override
    public void complete(TargetCommand cmd) {
        byte[] sense = java.util.Arrays.copyOf(cmd.senseBuffer(), cmd.senseLength());
        ByteBuffer in = cmd.dataIn();
        byte[] data = new byte[in.remaining()];
        in.get(in.position(), data);
        Result r = new Result(cmd.status(), sense, data, cmd.residualKind(), cmd.residualCount(), cmd.reason());
        CompletableFuture<Result> f = pending.remove(cmd.tag());
        cmd.release();
        f.complete(r);
    }

    /** Submits one command and waits for its completion. */
    public Result run(Session s, long lun, byte[] cdb, int expectedLength, int dir, byte[] dataOut) {
        return run(s, lun, cdb, TaskAttribute.SIMPLE, expectedLength, dir, dataOut);
    }

    public Result run(Session s, long lun, byte[] cdb, TaskAttribute attr, int expectedLength, int dir, byte[] dataOut) {
        CompletableFuture<Result> f = start(s, lun, cdb, attr, expectedLength, dir, dataOut);
        try {
            return f.get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("command did not complete: " + e, e);
        }
    }

    /** The tag of the command most recently started. */
    public synchronized long lastTag() { return nextTag - 1; }

    /** Submits without waiting. */
    public CompletableFuture<Result> start(Session s, long lun, byte[] cdb, TaskAttribute attr, int expectedLength, int dir,
                                           byte[] dataOut) {
        long tag;
        synchronized (this) {
            tag = nextTag++;
        }
        CompletableFuture<Result> f = new CompletableFuture<>();
        pending.put(tag, f);
        TargetCommand c = s.newCommand().setup(lun, cdb, 0, cdb.length, attr, tag, expectedLength, dir);
        if (dataOut != null) {
            ByteBuffer b = c.dataOutBuffer(dataOut.length);
            b.put(dataOut).flip();
        }
        s.submit(c);
        return f;
    }
}
