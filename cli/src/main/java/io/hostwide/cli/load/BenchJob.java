package io.hostwide.cli.load;

import io.hostwide.cli.util.MpscIntRing;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.SingleWriterRecorder;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * One fio "job": a thread that keeps {@code iodepth} I/Os in flight. Completions
 * may arrive on any thread; they only stamp the slot and push its number onto a
 * ring, and the job thread does the accounting, so histograms stay single-writer.
 */
final class BenchJob implements Runnable, BenchTarget.Completion {

    private static final long MAX_LATENCY_NANOS = 3_600_000_000_000L;
    /**
     * How long one poll waits for the device before the job looks at its ring again (a completion that came another
     * way, a stop request): a bound, not a spin — the polling thread sleeps in the device's wait.
     */
    private static final long POLL_WAIT_NANOS = 10_000_000L;

    private final BenchTarget target;
    private final BenchSpec spec;
    private final int index;
    private final long regionStart;
    private final long regionBlocks;
    private final SplittableRandom random;
    private final MpscIntRing completed;
    private final ByteBuffer[] buffers;
    private final long[] startNanos;
    private final long[] doneNanos;
    private final boolean[] isWrite;
    private final boolean[] failed;
    /** The slot's I/O was issued after the ramp, so it counts in the result (job thread only). */
    private final boolean[] counts;
    private final BenchRunner.StopFlag stop;

    final Histogram readLatency = new Histogram(MAX_LATENCY_NANOS, 3);
    final Histogram writeLatency = new Histogram(MAX_LATENCY_NANOS, 3);
    /**
     * Latencies again, for a timeline's per-second percentiles (null without one): the job thread records, the
     * runner takes each second's interval histogram without stopping it (HdrHistogram's phaser-based recorder).
     */
    final SingleWriterRecorder readInterval;
    final SingleWriterRecorder writeInterval;
    /** Published by the job thread (single writer, lazySet), read by the progress printer. */
    final AtomicLong readIos = new AtomicLong();
    final AtomicLong readBytes = new AtomicLong();
    final AtomicLong writeIos = new AtomicLong();
    final AtomicLong writeBytes = new AtomicLong();
    final AtomicLong errors = new AtomicLong();
    /**
     * Bytes of the completions counted in the result (after the ramp; job thread only, read after the join). The
     * counters above count the ramp's too, for the progress lines; failed I/Os count in {@link #errors} even in the
     * ramp, so no failure goes unreported.
     */
    long measuredReadBytes;
    long measuredWriteBytes;
    /** This job has seen the ramp end ({@link BenchRunner.StopFlag#measuring()}; job thread only). */
    private boolean measuring;

    private volatile Thread thread;
    private volatile boolean waiting;
    private long nextSequentialBlock;
    private long bytesIssued;
    private int inFlight;
    volatile Throwable failure;

    BenchJob(BenchTarget target, BenchSpec spec, int index, BenchRunner.StopFlag stop, boolean intervals) {
        this.readInterval = intervals ? new SingleWriterRecorder(MAX_LATENCY_NANOS, 2) : null;
        this.writeInterval = intervals ? new SingleWriterRecorder(MAX_LATENCY_NANOS, 2) : null;
        this.target = target;
        this.spec = spec;
        this.index = index;
        this.stop = stop;
        long blocksPerIo = spec.blockSize();
        long totalIos = target.capacityBytes() / blocksPerIo;
        if (totalIos < 1) {
            throw new IllegalArgumentException("--bs: " + spec.blockSize() + " is larger than the device ("
                    + target.capacityBytes() + " bytes)");
        }
        // Sequential jobs each walk their own slice of the device, as fio jobs walk their own files.
        long slice = spec.rw().random ? totalIos : Math.max(1, totalIos / spec.numjobs());
        this.regionStart = spec.rw().random ? 0 : Math.min(index * slice, totalIos - 1);
        this.regionBlocks = Math.min(slice, totalIos - regionStart);
        this.random = new SplittableRandom(spec.seed() * 31 + index);
        this.completed = new MpscIntRing(spec.iodepth());
        this.buffers = new ByteBuffer[spec.iodepth()];
        this.startNanos = new long[spec.iodepth()];
        this.doneNanos = new long[spec.iodepth()];
        this.isWrite = new boolean[spec.iodepth()];
        this.failed = new boolean[spec.iodepth()];
        this.counts = new boolean[spec.iodepth()];
        byte[] pattern = new byte[spec.blockSize()];
        random.nextBytes(pattern);
        for (int i = 0; i < buffers.length; i++) {
            buffers[i] = ByteBuffer.allocateDirect(spec.blockSize());
            buffers[i].put(pattern).flip();
        }
    }

    int index() {
        return index;
    }

    @Override
    public void run() {
        thread = Thread.currentThread();
        try {
            BenchTarget.JobQueue queue = target.openJob(index);
            for (int slot = 0; slot < buffers.length && mayIssue(); slot++) {
                issue(queue, slot);
            }
            while (inFlight > 0 && failure == null) {
                int slot = completed.poll();
                if (slot < 0) {
                    // --poll: reap on this thread (one wake-up per completion: the device's); a device that cannot
                    // be polled now says -1, and the job waits to be woken by its callbacks as without --poll.
                    if (!spec.poll() || queue.poll(POLL_WAIT_NANOS) < 0) {
                        waitForCompletion();
                    }
                    continue;
                }
                // The completions that arrived together are re-issued as one batch (a plug), as fio reaps a batch
                // of events and then submits: a driver that can send several commands in one write does. At most
                // iodepth of them, so a device that completes inside submit cannot keep one batch open forever.
                queue.startBatch();
                try {
                    int n = 0;
                    do {
                        account(slot);
                        if (mayIssue()) {
                            issue(queue, slot);
                        }
                    } while (++n < buffers.length && (slot = completed.poll()) >= 0);
                } finally {
                    queue.endBatch();
                }
            }
        } catch (Throwable t) {
            failure = t;
            stop.request();
        }
    }

    private boolean mayIssue() {
        if (!measuring && stop.measuring()) {
            measuring = true;
            bytesIssued = 0;   // --size counts from the end of the ramp, as the runtime does
        }
        return !stop.requested() && (spec.sizePerJob() == 0 || !measuring || bytesIssued < spec.sizePerJob());
    }

    private void issue(BenchTarget.JobQueue queue, int slot) {
        boolean write = spec.rw().mixed ? random.nextInt(100) >= spec.readPercent() : spec.readPercent() == 0;
        long block;
        if (spec.rw().random) {
            block = regionStart + random.nextLong(regionBlocks);
        } else {
            block = regionStart + nextSequentialBlock;
            nextSequentialBlock = nextSequentialBlock + 1 == regionBlocks ? 0 : nextSequentialBlock + 1;
        }
        ByteBuffer buf = buffers[slot];
        buf.clear();
        isWrite[slot] = write;
        counts[slot] = measuring;
        bytesIssued += spec.blockSize();
        inFlight++;
        startNanos[slot] = System.nanoTime();
        queue.submit(write, block * spec.blockSize(), spec.blockSize(), buf, slot, this);
    }

    /** Any thread: stamp and hand the slot back to the job thread. */
    @Override
    public void complete(int slot, boolean ok) {
        doneNanos[slot] = System.nanoTime();
        failed[slot] = !ok;
        // The ring's release/acquire pair publishes doneNanos/failed to the job thread.
        if (!completed.offer(slot)) {
            // Thrown here it would land on the device's completion thread, and the job would wait for the
            // completion it lost: record it, stop the run, and let the job end with it (BenchRunner reports it).
            failure = new IllegalStateException("more completions than slots in job " + index + " (slot " + slot
                    + "): a request completed twice");
            stop.request();
            LockSupport.unpark(thread);
            return;
        }
        if (waiting) { // volatile read after the ring's CAS of its tail: pairs with waitForCompletion
            LockSupport.unpark(thread);
        }
    }

    private void waitForCompletion() {
        waiting = true;   // volatile write, then the volatile read of the ring's tail: pairs with complete()
        if (completed.nothingClaimed() && failure == null) {
            LockSupport.parkNanos(this, 100_000_000L);
        } else {
            Thread.yield();   // claimed, not yet published: its producer is between two stores
        }
        waiting = false;
    }

    /**
     * Counts one completion: in the progress counters always, in the result only if it was issued after the ramp
     * (so --size is exact, and what the ramp left in flight stays out, as what the stop leaves in flight is drained
     * and counted: the measured I/Os are those issued from the ramp's end to the stop). Errors count even in the ramp.
     */
    private void account(int slot) {
        inFlight--;
        boolean counted = counts[slot];
        long latency = Math.max(1, Math.min(doneNanos[slot] - startNanos[slot], MAX_LATENCY_NANOS));
        if (failed[slot]) {
            errors.lazySet(errors.get() + 1);
        } else if (isWrite[slot]) {
            if (counted) {
                writeLatency.recordValue(latency);
                if (writeInterval != null) {
                    writeInterval.recordValue(latency);
                }
                measuredWriteBytes += spec.blockSize();
            }
            writeIos.lazySet(writeIos.get() + 1);
            writeBytes.lazySet(writeBytes.get() + spec.blockSize());
        } else {
            if (counted) {
                readLatency.recordValue(latency);
                if (readInterval != null) {
                    readInterval.recordValue(latency);
                }
                measuredReadBytes += spec.blockSize();
            }
            readIos.lazySet(readIos.get() + 1);
            readBytes.lazySet(readBytes.get() + spec.blockSize());
        }
    }
}
