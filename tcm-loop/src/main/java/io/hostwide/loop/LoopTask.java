package io.hostwide.loop;

import io.hostwide.scsi.mid.ScsiCmnd;

import java.nio.ByteBuffer;
import java.util.concurrent.Delayed;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The loop driver's per-command state ({@code struct tcm_loop_cmd}), kept in {@link ScsiCmnd#lldPrivate} and
 * reused for every issue of that command: the result copied out of the target command, the due time of a delayed
 * completion, and the state that arbitrates the completion timer against abort and reset.
 */
final class LoopTask implements Delayed {
    static final int IDLE = 0;
    /** Waiting in the completion timer. */
    static final int PENDING = 1;
    /** Swallowed by timeout injection: never completed, only aborted or reset. */
    static final int DROPPED = 2;
    /** The timer (or the inline path) is completing it. */
    static final int FIRING = 3;
    /** Taken away by an abort or reset. */
    static final int ABORTED = 4;

    final ScsiCmnd cmd;
    /** Unique per driver: with the issue number it forms the task tag the target core sees. */
    final int id;
    final AtomicInteger state = new AtomicInteger(IDLE);
    long dueNanos;
    /** The timer of the queue this task was last scheduled on (abort/reset take it back from there). */
    CompletionTimer timer;
    /** Issue number, carried as the target command's tag: a late answer to an earlier issue is dropped. */
    volatile long issue;
    /** Timeout injection for the current issue. */
    boolean dropIt;
    int hostByte;
    int status;
    final byte[] sense = new byte[ScsiCmnd.SENSE_BUFFERSIZE];
    int senseLength;
    int resid;
    /** A view of the caller's buffer, reused while the caller reuses the buffer. */
    private ByteBuffer viewOf;
    private ByteBuffer view;

    LoopTask(ScsiCmnd cmd, int id) {
        this.cmd = cmd;
        this.id = id;
    }

    /** The task tag of the current issue (SAM-5 task tag: unique among this nexus's tasks). */
    long tag() {
        return (long) id << 32 | (issue & 0xFFFF_FFFFL);
    }

    /** The Data-Out window of the command's buffer as position..limit (no copy). */
    ByteBuffer dataOutView() {
        ByteBuffer b = cmd.buffer();
        if (b != viewOf) {
            viewOf = b;
            view = b.duplicate();
        }
        view.limit(b.capacity()).position(cmd.bufferPosition()).limit(cmd.bufferPosition() + cmd.transferLength());
        return view;
    }

    void result(int hostByte, int status, byte[] sense, int senseLength, int resid) {
        this.hostByte = hostByte;
        this.status = status;
        int n = Math.min(senseLength, this.sense.length);
        if (n > 0) {
            System.arraycopy(sense, 0, this.sense, 0, n);
        }
        this.senseLength = Math.max(0, n);
        this.resid = resid;
    }

    /** Delivers the stored result to the midlayer. */
    void deliver() {
        cmd.done(hostByte, status, sense, 0, senseLength, resid);
    }

    @Override
    public long getDelay(TimeUnit unit) {
        return unit.convert(dueNanos - System.nanoTime(), TimeUnit.NANOSECONDS);
    }

    @Override
    public int compareTo(Delayed o) {
        return Long.compare(dueNanos, ((LoopTask) o).dueNanos);
    }
}
