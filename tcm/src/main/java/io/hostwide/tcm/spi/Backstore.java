package io.hostwide.tcm.spi;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The storage SPI under a device: block-addressed read/write/flush/unmap and a provisioning query. Calls are
 * plain blocking calls; {@link #blocking()} tells the core where it may make them. A non-blocking backstore
 * (RAM, null) is called on the submitting thread and completes the command there (no hand-off); a blocking one
 * (file) is only ever called from the device's bounded I/O queue, never from a network thread, except for
 * {@link #tryReadNow} and {@link #tryWriteNow}, which must not block and are tried first on the submitting thread.
 *
 * <p>Buffers: {@code dst}/{@code src} hold whole blocks between position and limit; implementations consume
 * (advance) them. Thread safety: concurrent calls for disjoint or overlapping ranges must be safe; the core
 * serialises overlapping writes only where SCSI demands atomicity (COMPARE AND WRITE, WRITE ATOMIC, ORWRITE).
 * An {@link IOException} becomes MEDIUM ERROR (UNRECOVERED READ ERROR / WRITE ERROR).
 */
public interface Backstore extends AutoCloseable {

    /** Logical block size in bytes (512, 4096, ...). */
    int blockSize();

    /** Capacity in logical blocks. */
    long blockCount();

    /** True when calls may block on I/O and must run on the device's I/O queue (see class comment). */
    boolean blocking();

    void read(long lba, ByteBuffer dst) throws IOException;

    /**
     * Whether {@link #tryReadNow} can ever succeed; read once, when the device is attached. Default false: every
     * read of a blocking backstore goes to the I/O queue.
     */
    default boolean readsNow() { return false; }

    /**
     * Reads as {@link #read} does, but only if that needs no waiting for storage (the data is in memory: the page
     * cache, a tmpfs page), because the core calls it on the thread that received the command, a network thread
     * among others (Linux's RWF_NOWAIT). It must never block on I/O, and is as safe against concurrent calls as
     * {@link #read}.
     *
     * @return true when {@code dst} was filled and advanced as {@link #read} does; false when the read would block,
     *         or was cut short, or cannot be tried now: then the position of {@code dst} is where it was and the
     *         core reads the whole range with {@link #read} on the device's I/O queue
     * @throws IOException as {@link #read}; the core then leaves the read to the I/O queue too, whose
     *         {@link #read} reports the error with the command's LBA
     */
    default boolean tryReadNow(long lba, ByteBuffer dst) throws IOException { return false; }

    /**
     * Whether {@link #tryWriteNow} can succeed; read when the device is attached and again before each attempt, so
     * it may turn false later (a filesystem found to refuse non-blocking writes) but must never turn true after
     * being false at attach. Cheap: a field read. Default false: every write of a blocking backstore goes to the I/O
     * queue.
     */
    default boolean writesNow() { return false; }

    /**
     * Writes as {@link #write} does, but only if that needs no waiting for storage (a tmpfs page; a page-cache
     * write that Linux's RWF_NOWAIT accepts), because the core calls it on the thread that received the command, a
     * network thread among others. It must never block on I/O, and is as safe against concurrent calls as
     * {@link #write}. With {@code fua} it may return true only when the data is as durable as {@link #write} with
     * {@code fua} would have made it; a backstore that would have to wait for that answers false.
     *
     * @return true when all of {@code src} was written and consumed as {@link #write} does; false when the write
     *         would block, was cut short or cannot be tried now: then the position of {@code src} is where it was
     *         (bytes may have reached the storage; the core writes the whole range again with {@link #write} on
     *         the device's I/O queue, the same data)
     * @throws IOException as {@link #write}; the core then leaves the write to the I/O queue too, whose
     *         {@link #write} reports the error with the command's LBA
     */
    default boolean tryWriteNow(long lba, ByteBuffer src, boolean fua) throws IOException { return false; }

    /** @param fua the data must be on stable storage when this returns (SBC-4 §5.43 FUA) */
    void write(long lba, ByteBuffer src, boolean fua) throws IOException;

    /** Makes every completed write durable (SYNCHRONIZE CACHE). */
    void flush() throws IOException;

    /** Whether {@link #unmap} really deallocates (thin provisioning possible). */
    boolean supportsUnmap();

    /** LBPRZ: reads of deallocated blocks return zeros. */
    boolean unmapReturnsZeros();

    /** Deallocates blocks [lba, lba+blocks); afterwards they read as zeros when {@link #unmapReturnsZeros()}. */
    void unmap(long lba, long blocks) throws IOException;

    /**
     * Provisioning state of the run starting at {@code lba} (GET LBA STATUS, SBC-4 §5.8): the number of
     * consecutive blocks, at most {@code maxBlocks}, that share {@code lba}'s state; positive when mapped,
     * negative when deallocated. Never 0 for {@code maxBlocks > 0}.
     */
    long provisioningRun(long lba, long maxBlocks) throws IOException;

    /** Writes zeros to [lba, lba+blocks). Default: plain writes of a zero block. */
    default void writeZeros(long lba, long blocks) throws IOException {
        int bs = blockSize();
        int chunkBlocks = (int) Math.max(1, Math.min(blocks, (1 << 20) / bs));
        ByteBuffer zero = ByteBuffer.allocate(chunkBlocks * bs);
        long done = 0;
        while (done < blocks) {
            int n = (int) Math.min(chunkBlocks, blocks - done);
            zero.clear().limit(n * bs);
            write(lba + done, zero, false);
            done += n;
        }
    }

    /**
     * Writes the one block between {@code block}'s position and limit to each of [lba, lba+blocks) (WRITE SAME,
     * SBC-4 §5.48). Default: plain writes of up to 256 KiB of copies; a backstore whose storage does this itself
     * (RBD's writesame) overrides it. {@code block} is not consumed.
     */
    default void writeSame(long lba, long blocks, ByteBuffer block) throws IOException {
        int bs = blockSize();
        int chunk = (int) Math.max(1, Math.min(blocks, (256 * 1024) / bs));
        ByteBuffer buf = ByteBuffer.allocate(chunk * bs);
        for (int i = 0; i < chunk; i++) {
            buf.put(block.duplicate());
        }
        long done = 0;
        while (done < blocks) {
            int n = (int) Math.min(chunk, blocks - done);
            buf.clear().limit(n * bs);
            write(lba + done, buf, false);
            done += n;
        }
    }

    /**
     * COMPARE AND WRITE (SBC-4 §5.3) done by the storage itself, atomically for every client of it (RBD's
     * compare_and_write: atomic across gateways, which the core's range lock cannot be). Compares the blocks at
     * {@code lba} with {@code verify} and, only when all bytes match, writes {@code data} (same length) there.
     *
     * @return -1 when the data was written; else the offset in bytes, from {@code lba}, of the first byte that
     *         differed (the MISCOMPARE sense's INFORMATION), and nothing was written
     * @throws UnsupportedOperationException when {@link #nativeCompareAndWrite} says no (the default)
     */
    default long compareAndWrite(long lba, ByteBuffer verify, ByteBuffer data, boolean fua) throws IOException {
        throw new UnsupportedOperationException("no native compare and write");
    }

    /**
     * Whether {@link #compareAndWrite} can compare and write {@code bytes} bytes; when not, the core compares and
     * writes under its own exclusive range lock (atomic for this target only).
     */
    default boolean nativeCompareAndWrite(int bytes) { return false; }

    /**
     * Changes the capacity to {@code sizeBytes} rounded down to whole blocks (LIO: a backstore's size attribute
     * written while exported). The device re-reads {@link #blockCount()} afterwards and raises CAPACITY DATA HAS
     * CHANGED on every nexus (SBC-4 §4.9.1 / SPC-4 §7.2.9). By default a backstore cannot be resized.
     *
     * @throws UnsupportedOperationException when this kind of backstore has a fixed size
     * @throws IllegalArgumentException when the size is less than one block or otherwise out of range
     */
    default void resize(long sizeBytes) throws IOException {
        throw new UnsupportedOperationException(describe() + ": this kind of backstore cannot be resized");
    }

    /**
     * Registers what to call when the capacity changes from outside (an RBD image resized by {@code rbd resize}
     * elsewhere): the device re-reads {@link #blockCount()} and raises CAPACITY DATA HAS CHANGED. Called once, by
     * the device that owns this backstore; the listener may run on any thread. By default the capacity only changes
     * through {@link #resize}, and nothing is registered.
     */
    default void onCapacityChange(Runnable listener) {}

    /** One line for dumps: kind, path or size. */
    String describe();

    @Override
    void close() throws IOException;
}
