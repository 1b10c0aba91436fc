package io.hostwide.tcm.sbc;

import io.hostwide.tcm.dispatch.Command;
import io.hostwide.tcm.dispatch.CommandDescriptor;
import io.hostwide.tcm.lu.BackgroundOperation;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.lu.RangeLock;
import io.hostwide.tcm.spi.Background;
import io.hostwide.tcm.spi.SenseReason;
import io.hostwide.tcm.spi.DataPathErrors;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * One sanitize operation (SBC-4 §4.11), run on the core's {@link Background} executor in chunks of at most
 * {@link #CHUNK_BYTES}, never on the thread that received the SANITIZE command. While it runs the device reports
 * it through {@link Device#operation()}: other commands get NOT READY / SANITIZE IN PROGRESS with the progress
 * indication. With IMMED = 0 the SANITIZE command completes when the operation does; a task management function
 * that aborts the command (ABORT TASK, LOGICAL UNIT RESET, I_T nexus loss...) ends the command between two chunks
 * but not the operation, which SBC-4 §4.11.1 has survive resets. Each chunk takes the range lock exclusively, so
 * a write that began before the SANITIZE never interleaves with it.
 *
 * <p>Threads: {@link #start} runs on the command's thread and hands the operation to the executor (a
 * happens-before edge); every other field is then touched only by the executor's thread, except {@code done},
 * which any thread reads for the progress indication.
 */
final class SanitizeOperation implements BackgroundOperation, Runnable {
    static final int CHUNK_BYTES = 1 << 20;

    private final Device dev;
    private final Background background;
    private final ByteBuffer[] patterns; // null: an erase; else the block pattern, then its inverse
    private final long passes;
    private final long blocks;
    private final long total;
    private volatile long done; // blocks written over all passes; written by the executor thread only
    private Command waiter;
    private long startNanos;

    private SanitizeOperation(Device dev, Background background, ByteBuffer[] patterns, int passes) {
        this.dev = dev;
        this.background = background;
        this.patterns = patterns;
        this.passes = passes;
        this.blocks = dev.blockCount();
        this.total = patterns == null ? 1 : blocks * passes;
    }

    /** BLOCK ERASE or CRYPTOGRAPHIC ERASE: every block deallocated (thin, LBPRZ = 1) or zeroed, in one step. */
    static SanitizeOperation erase(Command cmd) {
        return new SanitizeOperation(cmd.device(), cmd.background(), null, 1);
    }

    /** OVERWRITE: {@code block} written to every block {@code passes} times, inverted on odd passes if asked. */
    static SanitizeOperation overwrite(Command cmd, byte[] block, int passes, boolean invert) {
        Device dev = cmd.device();
        int bs = dev.blockSize();
        int chunkBlocks = (int) Math.max(1, Math.min(dev.blockCount(), CHUNK_BYTES / bs));
        ByteBuffer plain = ByteBuffer.allocate(chunkBlocks * bs);
        ByteBuffer inverse = invert ? ByteBuffer.allocate(chunkBlocks * bs) : plain;
        for (int i = 0; i < chunkBlocks * bs; i++) {
            plain.put(i, block[i % bs]);
            inverse.put(i, invert ? (byte) ~block[i % bs] : block[i % bs]);
        }
        return new SanitizeOperation(dev, cmd.background(), new ByteBuffer[] {plain, inverse}, passes);
    }

    /**
     * Starts the operation for {@code cmd}: with IMMED the command completes GOOD at once (SBC-4 §5.30.1), else
     * it completes when the operation does. Fails when a sanitize already runs.
     */
    int start(Command cmd, boolean immed) {
        if (!dev.startOperation(this)) {
            BackgroundOperation running = dev.operation();
            return cmd.failWithProgress(SenseReason.NOT_READY_SANITIZE_IN_PROGRESS,
                    running == null ? 0 : running.progressIndication());
        }
        waiter = immed ? null : cmd;
        startNanos = background.nanoTime();
        background.schedule(this, 0);
        return immed ? CommandDescriptor.DONE : CommandDescriptor.ASYNC;
    }

    @Override
    public SenseReason notReadyReason() { return SenseReason.NOT_READY_SANITIZE_IN_PROGRESS; }

    @Override
    public int progressIndication() { return (int) Math.min(0xFFFF, done * 0x10000 / total); }

    @Override
    public void run() {
        try {
            releaseAbortedWaiter();
            if (patterns == null ? eraseAll() : overwriteChunk()) {
                finish(null);
            } else {
                background.schedule(this, pacingDelay());
            }
        } catch (IOException e) {
            DataPathErrors.LOG.report(dev.name(), "SANITIZE", -1, -1, e);
            finish(SenseReason.SANITIZE_COMMAND_FAILED);
        } catch (RuntimeException e) {
            DataPathErrors.LOG.report(dev.name(), "SANITIZE (internal failure)", -1, -1, e);
            finish(SenseReason.INTERNAL_TARGET_FAILURE);
        }
    }

    /** A TMF aborted the SANITIZE command: it completes now (aborted), the operation goes on (SBC-4 §4.11.1). */
    private void releaseAbortedWaiter() {
        Command w = waiter;
        if (w != null && w.abortRequested()) {
            waiter = null;
            w.complete();
        }
    }

    private boolean eraseAll() throws IOException {
        long mask = RangeLock.mask(0, blocks);
        long[] stamps = RangeLock.stamps();
        dev.rangeLock().lockExclusive(mask, stamps);
        try {
            // Deallocation erases only where deallocated blocks read as zeros (LBPRZ = 1): a discard on a block
            // device (LBPRZ = 0) may leave the old data readable, which is no erase at all (SBC-4 §4.11.1).
            if (dev.backstore().supportsUnmap() && dev.backstore().unmapReturnsZeros()) {
                dev.backstore().unmap(0, blocks);
            } else {
                dev.backstore().writeZeros(0, blocks);
            }
            dev.backstore().flush();
        } finally {
            dev.rangeLock().unlockExclusive(mask, stamps);
        }
        done = total;
        return true;
    }

    private boolean overwriteChunk() throws IOException {
        long d = done;
        long pass = d / blocks;
        long lba = d % blocks;
        ByteBuffer buf = patterns[(int) (pass & 1)];
        int n = (int) Math.min(buf.capacity() / dev.blockSize(), blocks - lba);
        long mask = RangeLock.mask(lba, n);
        long[] stamps = RangeLock.stamps();
        dev.rangeLock().lockExclusive(mask, stamps);
        try {
            buf.clear().limit(n * dev.blockSize());
            dev.backstore().write(lba, buf, false);
        } finally {
            dev.rangeLock().unlockExclusive(mask, stamps);
        }
        done = d + n;
        if (done < total) {
            return false;
        }
        dev.backstore().flush();
        return true;
    }

    /** With a sanitize rate, the next chunk is due when the bytes written so far would have taken at that rate. */
    private long pacingDelay() {
        long rate = dev.attributes().sanitizeRate();
        if (rate <= 0) {
            return 0;
        }
        double seconds = (double) done * dev.blockSize() / rate;
        return startNanos + (long) (seconds * 1e9) - background.nanoTime();
    }

    /**
     * The LU is ready again (or in sanitize failure mode) before the SANITIZE command (IMMED = 0) reports the
     * outcome; with IMMED = 1 the failure mode is what tells the initiator.
     */
    private void finish(SenseReason failure) {
        dev.sanitizeFailed(failure != null); // SBC-4 §4.11.4: a failure leaves the LU in failure mode
        dev.endOperation(this);
        Command w = waiter;
        waiter = null;
        if (w != null) {
            if (failure != null) {
                w.fail(failure);
            }
            w.complete();
        }
    }
}
