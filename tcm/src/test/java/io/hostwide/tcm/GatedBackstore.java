package io.hostwide.tcm;

import io.hostwide.tcm.backstore.RamBackstore;
import io.hostwide.tcm.spi.Backstore;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Test equipment: a RAM backstore that reports itself blocking (commands run on the device's I/O queue threads),
 * records the LBA of every read and write as it arrives, and — while {@link #hold} is set — parks each operation
 * until the test hands out a permit. Lets ordering and abort tests step the backstore by hand.
 */
final class GatedBackstore implements Backstore {
    private final RamBackstore ram;
    private final LinkedBlockingQueue<Long> arrivals = new LinkedBlockingQueue<>();
    /** Parked operations, oldest first; {@link #release} opens them in arrival order. */
    private final ArrayDeque<Parked> parked = new ArrayDeque<>();

    /** One held operation. */
    private record Parked(long lba, CountDownLatch latch) {}
    private int spare; // permits handed out before anything was parked
    volatile boolean hold = true;

    /** Whether {@link #tryWriteNow} writes (never held: it must not block); false, the default, refuses it. */
    private final boolean writesNow;
    /** Writes done by {@link #tryWriteNow}, on the submitting thread. */
    final java.util.concurrent.atomic.AtomicInteger nowWrites = new java.util.concurrent.atomic.AtomicInteger();

    GatedBackstore(long bytes, int blockSize) { this(bytes, blockSize, false); }

    GatedBackstore(long bytes, int blockSize, boolean writesNow) {
        this.ram = new RamBackstore(bytes, blockSize);
        this.writesNow = writesNow;
    }

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

    /** Lets the {@code n} oldest held operations proceed (or the next ones to arrive, if fewer are held). */
    synchronized void release(int n) {
        for (int i = 0; i < n; i++) {
            Parked oldest = parked.pollFirst();
            if (oldest != null) {
                oldest.latch().countDown();
            } else {
                spare++;
            }
        }
    }

    /** Lets the held operation at {@code lba} proceed (and not another one). */
    synchronized void releaseLba(long lba) {
        for (java.util.Iterator<Parked> it = parked.iterator(); it.hasNext(); ) {
            Parked p = it.next();
            if (p.lba() == lba) {
                it.remove();
                p.latch().countDown();
                return;
            }
        }
        throw new AssertionError("no operation held at LBA " + lba);
    }

    /** try-with-resources hook: declared after the harness, it closes first. */
    interface Unblock extends AutoCloseable {
        @Override
        void close();
    }

    /** Stops holding and lets every held operation go (before the device closes: it waits for them). */
    void unblock() { open(); }

    private void gate(long lba) {
        boolean held = hold; // read before announcing the arrival: a test may clear hold once it saw it
        CountDownLatch mine = null;
        synchronized (this) {
            if (held) {
                if (spare > 0) {
                    spare--;
                } else {
                    mine = new CountDownLatch(1);
                    parked.addLast(new Parked(lba, mine));
                }
            }
            arrivals.add(lba); // announced after parking, so a release that follows the arrival finds it
        }
        if (mine != null) {
            try {
                mine.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
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

    @Override public boolean writesNow() { return writesNow; }

    /** Announces the arrival like {@link #write} but never holds it: a write tried inline must not block. */
    @Override
    public boolean tryWriteNow(long lba, ByteBuffer src, boolean fua) throws IOException {
        if (!writesNow) {
            return false;
        }
        nowWrites.incrementAndGet();
        arrivals.add(lba);
        ram.write(lba, src, fua);
        return true;
    }

    @Override public void flush() throws IOException { ram.flush(); }
    @Override public boolean supportsUnmap() { return ram.supportsUnmap(); }
    @Override public boolean unmapReturnsZeros() { return ram.unmapReturnsZeros(); }
    @Override public void unmap(long lba, long blocks) throws IOException { ram.unmap(lba, blocks); }
    @Override public long provisioningRun(long lba, long maxBlocks) throws IOException { return ram.provisioningRun(lba, maxBlocks); }
    @Override public String describe() { return "gated " + ram.describe(); }

    /** Lets every parked and future operation through. */
    synchronized void open() {
        hold = false;
        spare = Integer.MAX_VALUE / 2;
        parked.forEach(p -> p.latch().countDown());
        parked.clear();
    }

    @Override
    public void close() throws IOException {
        open();
        ram.close();
    }
}
