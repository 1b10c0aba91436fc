package io.hostwide.target;

import io.hostwide.target.backstore.Backstore;
import io.hostwide.target.backstore.RamBackstore;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Test equipment: a RAM backstore that reports itself blocking (commands run on the device's I/O queue threads),
 * records the LBA of every read and write as it arrives, and — while {@link #hold} is set — parks each operation
 * until the test hands out a permit. Lets ordering and abort tests step the backstore by hand.
 */
final class GatedBackstore implements Backstore {
    private final RamBackstore ram;
    private final LinkedBlockingQueue<Long> arrivals = new LinkedBlockingQueue<>();
    private final Semaphore permits = new Semaphore(0);
    private final java.util.Map<Long, Semaphore> lbaPermits = new java.util.concurrent.ConcurrentHashMap<>();
    volatile boolean hold = true;

    GatedBackstore(long bytes, int blockSize) { this.ram = new RamBackstore(bytes, blockSize); }

    /** The LBA of the next operation to reach the backstore; fails after 10 s. */
    long nextArrival() {
        try {
            Long l = arrivals.poll(10, TimeUnit.SECONDS);
            if (l == null) {
                throw new AssertionError("no operation reached the backstore");
            }
            return l;
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    /** Arrivals not yet taken with {@link #nextArrival()}. */
    int pendingArrivals() { return arrivals.size(); }

    /** try-with-resources hook: declared after the harness, it closes first. */
    interface Unblock extends AutoCloseable {
        @Override
        void close();
    }

    /** Stops holding and lets every held operation go (before the device closes: it waits for them). */
    void unblock() {
        hold = false;
        permits.release(1 << 20);
    }

    /** Lets the held operation at {@code lba} proceed (and not another one). */
    void releaseLba(long lba) { lbaPermits.computeIfAbsent(lba, k -> new Semaphore(0)).release(); }

    /** Lets {@code n} held operations proceed, whichever they are. */
    void release(int n) { permits.release(n); }

    private void gate(long lba) {
        boolean held = hold; // read before announcing the arrival: a test may clear hold once it saw it
        arrivals.add(lba);
        if (held) {
            Semaphore mine = lbaPermits.computeIfAbsent(lba, k -> new Semaphore(0));
            while (!permits.tryAcquire() && !mine.tryAcquire()) {
                java.util.concurrent.locks.LockSupport.parkNanos(100_000);
            }
        }
    }

    @Override public int blockSize() { return ram.blockSize(); }
    @Override public long blockCount() { return ram.blockCount(); }
    @Override public boolean blocking() { return true; }

    @Override
    public void read(long lba, ByteBuffer dst) throws IOException {
        gate(lba);
        ram.read(lba, dst);
    }

    @Override
    public void write(long lba, ByteBuffer src, boolean fua) throws IOException {
        gate(lba);
        ram.write(lba, src, fua);
    }

    @Override public void flush() throws IOException { ram.flush(); }
    @Override public boolean supportsUnmap() { return ram.supportsUnmap(); }
    @Override public boolean unmapReturnsZeros() { return ram.unmapReturnsZeros(); }
    @Override public void unmap(long lba, long blocks) throws IOException { ram.unmap(lba, blocks); }
    @Override public long provisioningRun(long lba, long maxBlocks) throws IOException { return ram.provisioningRun(lba, maxBlocks); }
    @Override public String describe() { return "gated " + ram.describe(); }

    @Override
    public void close() throws IOException {
        hold = false;
        permits.release(1 << 20);
        ram.close();
    }
}
