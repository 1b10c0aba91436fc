package io.hostwide.cli.copy;

import io.hostwide.blk.BlkStatus;
import io.hostwide.blk.IoCallback;
import io.hostwide.blk.ReqOp;
import io.hostwide.blk.api.BlockDevice;
import io.hostwide.blk.api.SubmitHandle;
import io.hostwide.cli.util.MpscIntRing;
import io.hostwide.scsi.sd.SdCdb;
import io.hostwide.scsi.sd.SgIo;
import io.hostwide.scsi.spec.SenseKey;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;

/**
 * One copy thread with {@code iodepth} chunks in flight. Each slot walks its chunk
 * through the phase's steps (copy: read source → write destination; verify: read
 * both → compare). Completions only record the status and hand the slot back on a
 * ring; the job thread does every submit, so callbacks never submit.
 */
final class CopyJob implements Runnable, IoCallback {

    private final CopyRunner run;
    private final Phase phase;
    private final BlockDevice src;
    private final BlockDevice dst;
    private final CopyPlan plan;
    private final MpscIntRing done;
    private final ByteBuffer[] a;
    private final ByteBuffer[] b;
    private final long[] chunkOf;
    private final int[] pending;
    private final BlkStatus[] status;
    /** Per slot: which request of the step failed first ({@link #READ_SRC} ...), valid when its status is not OK. */
    private final int[] failedRequest;

    /** The request a completion belongs to, in the upper half of its user data (the slot is the lower half). */
    private static final int READ_SRC = 0;
    private static final int WRITE_SRC = 1;
    private static final int READ_DST = 2;
    private static final int WRITE_DST = 3;
    private static final int VERIFY_DST = 4;
    private static final String[] REQUEST = {"read of the source", "write of the source", "read of the destination",
            "write of the destination", "VERIFY of the destination"};
    /** COPY: the slot's chunk has been read and its write is out; VERIFY_CMD: its VERIFY commands are going. */
    private final boolean[] writtenStep;
    private final VerifyMethod method;
    /** VERIFY_CMD: the slot's command, its Data-Out view of {@code a[s]}, and the piece it is on. */
    private final SgIo[] sg;
    private final ByteBuffer[] views;
    private final int[] piece;
    private final int pieceBytes;
    private final byte[] cdb = new byte[16];
    private volatile Thread thread;
    private volatile boolean waiting;
    /** Set by a completion that found the ring full; the job thread ends the phase with it as the error. */
    private volatile String lostCompletion;
    private int inFlight;

    CopyJob(CopyRunner run, Phase phase, VerifyMethod method, BlockDevice src, BlockDevice dst, CopyPlan plan) {
        this.run = run;
        this.phase = phase;
        this.method = phase == Phase.VERIFY ? method : VerifyMethod.COMPARE;
        this.src = src;
        this.dst = dst;
        this.plan = plan;
        // A slot has at most two requests out (verify's two reads), so 2 x iodepth completions can be waiting:
        // the ring never fills unless a device completes a request more often than it was submitted.
        this.done = new MpscIntRing(2 * plan.iodepth() + 1);
        this.a = new ByteBuffer[plan.iodepth()];
        this.b = new ByteBuffer[plan.iodepth()];
        this.chunkOf = new long[plan.iodepth()];
        this.pending = new int[plan.iodepth()];
        this.status = new BlkStatus[plan.iodepth()];
        this.failedRequest = new int[plan.iodepth()];
        this.writtenStep = new boolean[plan.iodepth()];
        boolean cmd = this.method == VerifyMethod.VERIFY_CMD;
        this.sg = new SgIo[plan.iodepth()];
        this.views = new ByteBuffer[plan.iodepth()];
        this.piece = new int[plan.iodepth()];
        this.pieceBytes = cmd ? pieceBytes(dst, plan.chunk()) : 0;
        for (int i = 0; i < a.length; i++) {
            a[i] = ByteBuffer.allocateDirect(plan.chunk());
            b[i] = phase == Phase.VERIFY && !cmd ? ByteBuffer.allocateDirect(plan.chunk()) : null;
            if (cmd) {
                sg[i] = new SgIo();
                views[i] = a[i].duplicate();
            }
        }
    }

    /** The Data-Out of one VERIFY: a chunk, or the destination's max_hw_sectors when that is smaller. */
    private static int pieceBytes(BlockDevice dst, int chunk) {
        long max = dst.queue().maxHwSectorsKb() * 1024L;
        int lbs = dst.logicalBlockSize();
        long p = Math.min(chunk, max);
        return (int) Math.max(lbs, p - p % lbs);
    }

    @Override
    public void run() {
        thread = Thread.currentThread();
        try {
            SubmitHandle in = src.openHandle();
            SubmitHandle out = phase == Phase.FILL ? in : dst.openHandle();
            for (int s = 0; s < a.length; s++) {
                start(s, in, out);
            }
            while (inFlight > 0) {
                if (lostCompletion != null) {
                    // A slot's completion count no longer matches its requests: nothing it would do next is
                    // safe (a wait that never ends, or a step on a buffer still in use), so the job stops here.
                    run.fail(lostCompletion);
                    return;
                }
                int s = done.poll();
                if (s < 0) {
                    waitForCompletion();
                    continue;
                }
                if (--pending[s] > 0) {
                    continue; // verify: the other read is still out
                }
                step(s, in, out);
            }
        } catch (RuntimeException e) {
            run.fail("job failed: " + e.getMessage());
        }
    }

    /** Takes the next chunk for slot {@code s}, if any, and sends its first request(s). */
    private void start(int s, SubmitHandle in, SubmitHandle out) {
        long chunk = run.nextChunk();
        if (chunk < 0) {
            return;
        }
        chunkOf[s] = chunk;
        int len = plan.lengthOf(chunk);
        inFlight++;
        status[s] = BlkStatus.OK;
        ByteBuffer buf = a[s].clear().limit(len);
        long srcAt = plan.srcOffset() + chunk * plan.chunk();
        switch (phase) {
            case FILL -> {
                fillPattern(buf, plan.seed(), chunk);
                pending[s] = 1;
                in.write(srcAt, len, buf, this, tag(s, WRITE_SRC));
            }
            case COPY -> {
                pending[s] = 1;
                in.read(srcAt, len, buf, this, tag(s, READ_SRC));
            }
            case VERIFY -> {
                if (method == VerifyMethod.VERIFY_CMD) {
                    pending[s] = 1;   // the source first; its data is then the VERIFY commands' Data-Out
                    in.read(srcAt, len, buf, this, tag(s, READ_SRC));
                    return;
                }
                pending[s] = 2;
                in.read(srcAt, len, buf, this, tag(s, READ_SRC));
                out.read(plan.dstOffset() + chunk * plan.chunk(), len, b[s].clear().limit(len), this, tag(s, READ_DST));
            }
        }
    }

    /** VERIFY(16) BYTCHK=1 of the slot's current piece on the destination, with the source bytes as Data-Out. */
    private void sendVerify(int s, SubmitHandle out, long chunk, int len) {
        int off = piece[s] * pieceBytes;
        int n = Math.min(pieceBytes, len - off);
        int lbs = dst.logicalBlockSize();
        long lba = (plan.dstOffset() + chunk * plan.chunk() + off) / lbs;
        sg[s].cdb(cdb, SdCdb.verify16(cdb, lba, n / lbs, SdCdb.BYTCHK_COMPARE));
        ByteBuffer v = views[s].clear();
        v.position(off).limit(off + n);
        pending[s] = 1;
        out.passthrough(ReqOp.DRV_OUT, sg[s], v, n, this, tag(s, VERIFY_DST));
    }

    private static final int CHUNK_DONE = 0;
    private static final int NEXT_PIECE_SENT = 1;
    private static final int FAILED = 2;

    /** VERIFY_CMD after one piece: the chunk is done (equal, or its miscompare recorded), goes on, or failed. */
    private int verifyPieceDone(int s, SubmitHandle out, long chunk, int len) {
        SgIo io = sg[s];
        if (io.good()) {
            piece[s]++;
            if (piece[s] * pieceBytes < len) {
                sendVerify(s, out, chunk, len);
                return NEXT_PIECE_SENT;
            }
            return CHUNK_DONE;
        }
        if (io.senseKey() == SenseKey.MISCOMPARE) {
            // SBC-4 §5.34: INFORMATION is the offset of the first differing byte in the Data-Out.
            long info = Math.max(0, io.information());
            run.mismatch(plan.srcOffset() + chunk * plan.chunk() + (long) piece[s] * pieceBytes + info);
            return CHUNK_DONE;
        }
        run.fail("VERIFY(16) at chunk " + chunk + " (byte " + chunk * plan.chunk() + "): " + VerifyCmd.describe(io));
        return FAILED;
    }

    /** All requests of the slot's current step ended: account, go on, or start the next chunk. */
    private void step(int s, SubmitHandle in, SubmitHandle out) {
        long chunk = chunkOf[s];
        int len = plan.lengthOf(chunk);
        if (status[s] != BlkStatus.OK) {
            inFlight--;
            run.fail(failure(s, chunk));
            return;
        }
        if (phase == Phase.COPY && !writtenStep[s]) {
            run.recordIn(len);
            writtenStep[s] = true;
            pending[s] = 1;
            out.write(plan.dstOffset() + chunk * plan.chunk(), len, a[s], this, tag(s, WRITE_DST));
            return;
        }
        if (method == VerifyMethod.VERIFY_CMD) {
            if (!writtenStep[s]) {
                run.recordIn(len);
                writtenStep[s] = true;
                piece[s] = 0;
                sendVerify(s, out, chunk, len);
                return;
            }
            int r = verifyPieceDone(s, out, chunk, len);
            if (r == NEXT_PIECE_SENT) {
                return;
            }
            writtenStep[s] = false;
            if (r == FAILED) {
                inFlight--;
                return;
            }
            inFlight--;
            run.chunkDone(chunk, len);
            start(s, in, out);
            return;
        }
        writtenStep[s] = false;
        inFlight--;
        switch (phase) {
            case FILL -> run.recordOut(len);
            case COPY -> run.recordOut(len);
            case VERIFY -> {
                run.recordIn(len);
                int diff = a[s].mismatch(b[s]);
                if (diff >= 0) {
                    run.mismatch(plan.srcOffset() + chunk * plan.chunk() + diff);
                }
            }
        }
        run.chunkDone(chunk, len);
        start(s, in, out);
    }

    /** Any thread: remember the status, hand the slot back to the job thread. */
    private static long tag(int slot, int request) {
        return (long) request << 32 | slot;
    }

    /**
     * What failed, where, and what the status means: "write of the destination failed at byte 1048576 (chunk 1,
     * 65536 bytes): I/O error (IOERR: the device answered with an error; its sense is in the target's log)".
     */
    private String failure(int s, long chunk) {
        int r = failedRequest[s];
        boolean onDst = r == READ_DST || r == WRITE_DST || r == VERIFY_DST;
        long at = (onDst ? plan.dstOffset() : plan.srcOffset()) + chunk * plan.chunk();
        return REQUEST[r] + " failed at byte " + at + " (chunk " + chunk + ", " + plan.lengthOf(chunk) + " bytes): "
                + meaning(status[s]);
    }

    static String meaning(BlkStatus st) {
        return switch (st) {
            case IOERR -> "I/O error (IOERR: the device answered with an error status or sense; the target's log "
                    + "names it)";
            case TIMEOUT -> "no answer in time (TIMEOUT: the request was aborted after the device's timeout)";
            case NOTSUPP -> "not supported by the device (NOTSUPP)";
            case OFFLINE -> "the device went away (OFFLINE: connection lost or device removed)";
            case AGAIN, RESOURCE, DEV_RESOURCE -> "out of resources (" + st + ")";
            case OK -> "no error";
        };
    }

    @Override
    public void onComplete(long userData, BlkStatus st) {
        int s = (int) userData;
        if (st != BlkStatus.OK && status[s] == BlkStatus.OK) {
            status[s] = st;
            failedRequest[s] = (int) (userData >>> 32);
        }
        // The ring's release/acquire pair publishes status[s].
        if (!done.offer(s)) {
            lostCompletion = "completion of slot " + s + " (" + st + ") could not be handed to its job: more "
                    + "completions than requests out (" + done.capacity() + " waiting), a request completed twice";
            LockSupport.unpark(thread);
            return;
        }
        if (waiting) {   // volatile read after the ring's CAS of its tail: pairs with waitForCompletion
            LockSupport.unpark(thread);
        }
    }

    private void waitForCompletion() {
        waiting = true;   // volatile write, then the volatile read of the ring's tail: pairs with onComplete
        if (done.nothingClaimed() && lostCompletion == null) {
            LockSupport.parkNanos(this, 100_000_000L);
        } else {
            Thread.yield();   // claimed, not yet published: its producer is between two stores
        }
        waiting = false;
    }

    /** Deterministic per-chunk data, so a fill can be checked without keeping it. */
    static void fillPattern(ByteBuffer buf, long seed, long chunk) {
        SplittableRandom r = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + chunk);
        int n = buf.limit();
        int i = 0;
        for (; i + 8 <= n; i += 8) {
            buf.putLong(i, r.nextLong());
        }
        for (; i < n; i++) {
            buf.put(i, (byte) r.nextInt());
        }
    }
}
