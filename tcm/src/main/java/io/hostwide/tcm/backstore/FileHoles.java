package io.hostwide.tcm.backstore;

import java.io.Closeable;
import java.io.IOException;

/**
 * What a file backstore needs from the filesystem beyond {@link java.nio.channels.FileChannel}: deallocating a
 * byte range (Linux {@code fallocate(FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE)}) and finding which ranges hold
 * data ({@code lseek(SEEK_DATA / SEEK_HOLE)}). Java 21 has neither, so there are two implementations, chosen by
 * {@link FileAccess} when the file is opened: {@code NativeFileHoles} (Java 22+ Foreign Function &amp; Memory API,
 * Linux) and {@link PortableFileHoles} (cannot deallocate, reports everything as data).
 *
 * <p>Thread safety: every method may be called concurrently with itself and with channel I/O.
 */
interface FileHoles extends Closeable {

    /** Returned by {@link #nextData} when no data follows, and by {@link #nextHole} when no hole is known. */
    long NONE = Long.MAX_VALUE;

    /** True when {@link #nextData}/{@link #nextHole} come from the filesystem, not a guess of "all data". */
    boolean tracksAllocation();

    /**
     * True while {@link #punchHole} may still deallocate: a native implementation until the filesystem answered
     * EOPNOTSUPP once (then it is remembered for this file).
     */
    boolean canPunch();

    /**
     * Deallocates {@code [offset, offset + length)}, keeping the file size; the range then reads as zeros.
     * Callers pass whole filesystem blocks. Returns false, having changed nothing, when the filesystem cannot
     * deallocate: the caller then writes zeros itself.
     */
    boolean punchHole(long offset, long length) throws IOException;

    /** SEEK_DATA: the first offset at or after {@code offset} that lies in data, or {@link #NONE}. */
    long nextData(long offset) throws IOException;

    /**
     * SEEK_HOLE: the first offset at or after {@code offset} that lies in a hole (end of file counts as one;
     * {@code offset} itself when at or past it), or {@link #NONE} when the implementation cannot tell.
     */
    long nextHole(long offset) throws IOException;

    /**
     * The path through which a second open reaches exactly the file these holes act on: {@code original} for the
     * portable implementation, {@code /proc/self/fd/N} for the native one (see {@link FileAccess}).
     */
    default java.nio.file.Path sameFile(java.nio.file.Path original) { return original; }

    /** "native" or "portable (why)", for dumps. */
    String describe();
}
