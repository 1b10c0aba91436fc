package io.hostwide.tcm.backstore;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * Reads (and writes) of a file that never wait for storage, for {@link FileBackstore#tryReadNow} and
 * {@link FileBackstore#tryWriteNow}: {@code NativeNowaitReads} (Java 22+, Linux) on a descriptor of its own;
 * {@link #none} elsewhere, which never reads nor writes.
 */
interface NowaitReads extends Closeable {
    /** {@link #read}'s answer when the data is not in memory (EAGAIN) or the read cannot be tried now. */
    int WOULD_BLOCK = -1;

    /**
     * Reads into {@code dst} (position to limit) from byte {@code offset} if it needs no waiting for storage, and
     * advances {@code dst} by what it read.
     *
     * @return the bytes read, possibly fewer than asked (the rest is not in memory, or end of file), or
     *         {@link #WOULD_BLOCK}
     */
    int read(long offset, ByteBuffer dst) throws IOException;

    /** Whether {@link #read} can ever read anything. */
    boolean available();

    /**
     * Writes {@code src} (position to limit) at byte {@code offset} if that needs no waiting for storage, and
     * advances {@code src} by what it wrote. Not durable: the caller flushes when it must.
     *
     * @return the bytes written, possibly fewer than asked, or {@link #WOULD_BLOCK} (EAGAIN; the filesystem turned
     *         out to refuse non-blocking writes; a heap buffer)
     */
    default int write(long offset, ByteBuffer src) throws IOException { return WOULD_BLOCK; }

    /** Whether {@link #write} can ever write anything (it may still find out later that it cannot). */
    default boolean writesAvailable() { return false; }

    /**
     * True when the file lives in memory (tmpfs, ramfs): nothing waits for a device there, and making a write
     * durable (fdatasync) has nothing to wait for either.
     */
    default boolean inMemory() { return false; }

    /** A path that names the same file as this reader's descriptor (see {@link FileAccess}). */
    default Path sameFile(Path original) { return original; }

    /** For the backstore's description: how reads avoid blocking, or why they cannot. */
    String describe();

    /** A reader that never reads, saying why. */
    static NowaitReads none(String why) {
        return new NowaitReads() {
            @Override public int read(long offset, ByteBuffer dst) { return WOULD_BLOCK; }
            @Override public boolean available() { return false; }
            @Override public String describe() { return why; }
            @Override public void close() {}
        };
    }
}
