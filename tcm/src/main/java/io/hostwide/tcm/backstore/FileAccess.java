package io.hostwide.tcm.backstore;

import java.io.Closeable;
import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * An open file backstore: the channel that carries data, the {@link FileHoles} that deallocate and find holes,
 * the {@link NowaitReads} that read from the page cache without blocking, and the alignment O_DIRECT imposes (0
 * without it).
 *
 * <p>Native hole support and non-blocking reads need a file descriptor, which FileChannel does not expose. The
 * native side therefore opens the path itself (the reader through the holes' descriptor when there is one), and
 * the channel is then opened through {@code /proc/self/fd/N}: all name the very same inode, even if the path is
 * renamed or replaced in between (opening the path twice could reach two files).
 */
record FileAccess(FileChannel channel, FileHoles holes, NowaitReads reads, int directAlignment) implements Closeable {

    /** Without non-blocking reads (tests that substitute the holes). */
    FileAccess(FileChannel channel, FileHoles holes, int directAlignment) {
        this(channel, holes, NowaitReads.none("not requested"), directAlignment);
    }

    /** How the channel is opened; tests substitute one that fails like a filesystem refusing O_DIRECT. */
    @FunctionalInterface
    interface Opener {
        FileChannel open(Path path, OpenOption... options) throws IOException;
    }

    static final Opener DEFAULT_OPENER = FileChannel::open;

    /**
     * {@code com.sun.nio.file.ExtendedOpenOption.DIRECT} (module jdk.unsupported), looked up reflectively so a
     * runtime image without that module still runs, and javac has no internal-API warning to print; null if absent.
     */
    static final OpenOption DIRECT = directOption();

    private static OpenOption directOption() {
        try {
            return (OpenOption) Class.forName("com.sun.nio.file.ExtendedOpenOption").getField("DIRECT").get(null);
        } catch (ReflectiveOperationException | LinkageError | ClassCastException e) {
            return null;
        }
    }

    /**
     * Opens (creating if absent) {@code path} for reading and writing.
     *
     * @param direct      O_DIRECT; the filesystem must accept it, else an IOException that says so
     * @param nativeHoles use native hole punching and SEEK_DATA/SEEK_HOLE when this runtime and OS offer them
     * @param nowaitReads read without blocking when the data is in memory, where this runtime, OS and filesystem
     *                    offer it; never with O_DIRECT, whose reads bypass the page cache
     */
    static FileAccess open(Path path, boolean direct, boolean nativeHoles, boolean nowaitReads, Opener opener)
            throws IOException {
        FileHoles holes = nativeHoles ? NativeLoader.open(path) : new PortableFileHoles("not requested");
        NowaitReads reads = NowaitReads.none(direct ? "not with O_DIRECT" : "not requested");
        try {
            Path via = holes.sameFile(path);
            if (nowaitReads && !direct) {
                reads = NowaitLoader.open(path, via);
                via = reads.sameFile(via);
            }
            FileChannel ch = openChannel(path, via, direct, opener);
            int alignment = 0;
            if (direct) {
                alignment = directAlignment(path, ch);
            }
            return new FileAccess(ch, holes, reads, alignment);
        } catch (IOException | RuntimeException e) {
            try {
                reads.close();
            } finally {
                holes.close();
            }
            throw e;
        }
    }

    private static FileChannel openChannel(Path path, Path via, boolean direct, Opener opener) throws IOException {
        List<OpenOption> options = new ArrayList<>(List.of(StandardOpenOption.READ, StandardOpenOption.WRITE));
        if (via.equals(path)) {
            options.add(StandardOpenOption.CREATE);
        }
        if (!direct) {
            return opener.open(via, options.toArray(OpenOption[]::new));
        }
        List<OpenOption> withDirect = new ArrayList<>(options);
        if (DIRECT == null) {
            throw new IOException(path + ": this Java runtime has no O_DIRECT open option (module jdk.unsupported)");
        }
        withDirect.add(DIRECT);
        try {
            return opener.open(via, withDirect.toArray(OpenOption[]::new));
        } catch (UnsupportedOperationException e) {
            throw new IOException(path + ": O_DIRECT is not supported on this platform; remove \"direct\"", e);
        } catch (IOException refused) {
            // Tell a filesystem that refuses O_DIRECT (EINVAL at open) apart from a file that cannot be opened at all.
            try (FileChannel plain = opener.open(via, options.toArray(OpenOption[]::new))) {
                plain.size();
            } catch (IOException other) { // not O_DIRECT's fault: report why the file cannot be opened
                other.addSuppressed(refused);
                throw other;
            }
            throw new IOException(path + ": the filesystem (" + storeType(path) + ") refuses O_DIRECT ("
                    + refused.getMessage() + "); remove \"direct\" for this backstore or move the file", refused);
        }
    }

    private static int directAlignment(Path path, FileChannel ch) throws IOException {
        try {
            long bs = Files.getFileStore(path).getBlockSize();
            if (bs <= 0 || bs > (1 << 20) || Long.bitCount(bs) != 1) {
                throw new IOException(path + ": filesystem block size " + bs + " is unusable for O_DIRECT");
            }
            return (int) bs;
        } catch (IOException | UnsupportedOperationException e) {
            ch.close();
            throw e instanceof IOException io ? io : new IOException(path + ": no filesystem block size for O_DIRECT", e);
        }
    }

    private static String storeType(Path path) {
        try {
            return Files.getFileStore(path).type();
        } catch (IOException e) {
            return "unknown type";
        }
    }

    @Override
    public void close() throws IOException {
        try {
            channel.close();
        } finally {
            try {
                reads.close();
            } finally {
                holes.close();
            }
        }
    }

    /** Loads NativeNowaitReads (compiled for Java 22) only where it can work; otherwise a reader saying why not. */
    static final class NowaitLoader {
        private NowaitLoader() {}

        private static final Java22Native NATIVE = Java22Native.find("NativeNowaitReads", NowaitReads.class,
                "non-blocking reads");
        private static final MethodHandle OPEN = NATIVE.open();

        /**
         * @param via the path to open: the holes' {@code /proc/self/fd} path, or {@code path} itself, which is then
         *            created when absent (the native open does not create)
         */
        static NowaitReads open(Path path, Path via) throws IOException {
            if (OPEN == null) {
                return NowaitReads.none(NATIVE.unavailable());
            }
            if (via.equals(path)) {
                try {
                    Files.createFile(path);
                } catch (FileAlreadyExistsException exists) {
                    // the common case
                } catch (NoSuchFileException e) {
                    throw new NoSuchFileException(path.toString(), null, "parent directory does not exist");
                }
            }
            try {
                return (NowaitReads) OPEN.invoke(via);
            } catch (IOException e) { // e.g. a filesystem that refuses RWF_NOWAIT: say so in the description
                return NowaitReads.none(e.getMessage());
            } catch (RuntimeException | LinkageError e) { // e.g. IllegalCallerException: native access denied
                return NowaitReads.none("native access unavailable: " + e);
            } catch (Error e) {
                throw e;
            } catch (Throwable t) { // NativeNowaitReads.open declares IOException only
                throw new IllegalStateException(t);
            }
        }
    }

    /** Loads NativeFileHoles (compiled for Java 22) only where it can work; otherwise says why not. */
    static final class NativeLoader {
        private NativeLoader() {}

        private static final Java22Native NATIVE = Java22Native.find("NativeFileHoles", FileHoles.class, "fallocate/SEEK_HOLE");
        private static final MethodHandle OPEN = NATIVE.open();
        private static final String UNAVAILABLE = NATIVE.unavailable();

        /** Why native hole support is unavailable in this JVM, or null when it is available. */
        static String unavailable() { return UNAVAILABLE; }

        static FileHoles open(Path path) throws IOException {
            if (OPEN == null) {
                return new PortableFileHoles(UNAVAILABLE);
            }
            try {
                Files.createFile(path); // the native open does not create: the JDK encodes the name as usual
            } catch (FileAlreadyExistsException exists) {
                // the common case
            } catch (NoSuchFileException e) {
                throw new NoSuchFileException(path.toString(), null, "parent directory does not exist");
            }
            try {
                return (FileHoles) OPEN.invoke(path);
            } catch (IOException e) {
                return new PortableFileHoles("native open failed: " + e.getMessage());
            } catch (RuntimeException | LinkageError e) { // e.g. IllegalCallerException: native access denied
                return new PortableFileHoles("native access unavailable: " + e);
            } catch (Error e) {
                throw e;
            } catch (Throwable t) { // NativeFileHoles.open declares IOException only
                throw new IllegalStateException(t);
            }
        }
    }
}
