package io.hostwide.tcm.lu;

import io.hostwide.scsi.spec.ScsiStatus;

import java.util.concurrent.atomic.LongAdder;

/**
 * I/O counters of one device (or of one exported LUN, or of one session: the same counters at another scope), as
 * every fabric sees it: commands, bytes and latency (from submission to the core
 * until the result is final, i.e. excluding the transport), split into reads (medium access with Data-In), writes
 * (commands that change the medium) and other commands; plus CHECK CONDITION and other non-GOOD results, and
 * aborted commands, and of those errors the TASK SET FULL answers (the queue was full: a sign to raise its depth or
 * lower the initiator's). The fast path costs a few striped-counter increments and no lock; {@link #snapshot()} reads
 * without stopping I/O, so counters of one snapshot may differ by the commands completing meanwhile.
 */
public final class DeviceStats {
    /** Which counters a command feeds. */
    public enum Kind { READ, WRITE, OTHER }

    private final LongAdder[] ops = adders();
    private final LongAdder[] bytes = adders();
    private final LatencyHistogram[] latency = {new LatencyHistogram(), new LatencyHistogram(),
        new LatencyHistogram()};
    private final LongAdder errors = new LongAdder();
    private final LongAdder aborted = new LongAdder();
    private final LongAdder taskSetFull = new LongAdder();

    private static LongAdder[] adders() {
        return new LongAdder[] {new LongAdder(), new LongAdder(), new LongAdder()};
    }

    /** Counts one completed command. {@code status} is the SAM status byte (0 = GOOD). */
    public void record(Kind kind, long byteCount, long latencyNanos, int status, boolean wasAborted) {
        int k = kind.ordinal();
        ops[k].increment();
        if (byteCount > 0) {
            bytes[k].add(byteCount);
        }
        latency[k].record(latencyNanos);
        if (wasAborted) {
            aborted.increment();
        } else if (status != 0) {
            errors.increment();
            if (status == ScsiStatus.TASK_SET_FULL) {
                taskSetFull.increment();
            }
        }
    }

    public Snapshot snapshot() {
        return new Snapshot(side(Kind.READ), side(Kind.WRITE), side(Kind.OTHER), errors.sum(), aborted.sum(),
                taskSetFull.sum());
    }

    private Side side(Kind k) {
        int i = k.ordinal();
        return new Side(ops[i].sum(), bytes[i].sum(), latency[i].snapshot());
    }

    /** Commands, bytes and latencies of one kind. */
    public record Side(long ops, long bytes, LatencyHistogram.Snapshot latency) {
    }

    /** Every counter of the device at one moment. */
    public record Snapshot(Side reads, Side writes, Side other, long errors, long aborted, long taskSetFull) {
    }
}
