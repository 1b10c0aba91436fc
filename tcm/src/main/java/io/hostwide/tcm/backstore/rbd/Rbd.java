package io.hostwide.tcm.backstore.rbd;

import io.hostwide.tcm.spi.AsyncBackstore;
import io.hostwide.tcm.spi.ReservationStore;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Opens Ceph RBD images as backstores. The binding ({@code RbdImage}, src/main/java22) uses the Foreign Function &amp;
 * Memory API, final in Java 22, and is loaded reflectively so that this module still runs on Java 21, where an RBD
 * backstore is refused with {@link #unavailable()}'s reason instead of failing at class loading.
 */
public final class Rbd {
    private Rbd() {}

    private static final MethodHandle OPEN;
    private static final MethodHandle OPEN_RESERVATIONS;
    private static final String UNAVAILABLE;

    static {
        MethodHandle open = null;
        MethodHandle openReservations = null;
        String why = null;
        int feature = Runtime.version().feature();
        if (feature < 22) {
            why = "the rbd backstore needs Java 22+ (FFM); this is Java " + feature;
        } else if (!System.getProperty("os.name", "").startsWith("Linux")) {
            why = "the rbd backstore runs on Linux only";
        } else {
            try {
                Class<?> c = Class.forName(Rbd.class.getPackageName() + ".RbdImage");
                MethodHandles.Lookup lookup = MethodHandles.lookup();
                why = (String) lookup.findStatic(c, "missingLibrary", MethodType.methodType(String.class)).invoke();
                if (why == null) {
                    open = lookup.findStatic(c, "open",
                            MethodType.methodType(AsyncBackstore.class, RbdConfig.class, int.class));
                    Class<?> store = Class.forName(Rbd.class.getPackageName() + ".RadosReservationStore");
                    openReservations = lookup.findStatic(store, "open",
                            MethodType.methodType(SharedReservationStore.class, RbdConfig.class));
                }
            } catch (Throwable e) { // ReflectiveOperationException, LinkageError (class version, missing symbol)
                why = "the rbd backstore did not load: " + e;
            }
        }
        OPEN = open;
        OPEN_RESERVATIONS = openReservations;
        UNAVAILABLE = why;
    }

    /** Why RBD backstores cannot be opened in this JVM (Java version, librbd missing), or null when they can. */
    public static String unavailable() { return UNAVAILABLE; }

    /**
     * The reservation state of an RBD image's LU in a RADOS object of the image's pool, shared by every gateway
     * that exports the image (issue 16 item 2); see {@code RadosReservationStore}. Closing it shuts its client down.
     */
    public interface SharedReservationStore extends ReservationStore, AutoCloseable {
        /** The RADOS object holding the state ({@code hostwide_pr.<image id>}). */
        String objectName();

        /**
         * The address of this gateway's image client ({@code SharedOwnership.clientAddress()}), recorded beside
         * each watch, so that a notifier fencing this gateway as a silent watcher blocklists its image client too
         * and its late writes cannot reach the image. Set before the first watch.
         */
        default void imageClient(java.util.function.Supplier<String> address) {}

        /** Records the image client's address again beside every watch of this store (after the image reopened). */
        default void refreshWatchers() {}

        @Override
        void close();
    }

    /**
     * Connects a client of {@code config}'s cluster for the reservation state of its image (a client of its own:
     * see {@code RadosReservationStore} for why). The image must exist.
     *
     * @throws IOException when the cluster cannot be reached, the pool or image does not exist, or RBD backstores
     *         are unavailable here (the message says why)
     */
    public static SharedReservationStore openReservationStore(RbdConfig config) throws IOException {
        if (OPEN_RESERVATIONS == null) {
            throw new IOException(UNAVAILABLE);
        }
        try {
            return (SharedReservationStore) OPEN_RESERVATIONS.invokeExact(config);
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException(t);
        }
    }

    /**
     * Connects to the cluster of {@code config} and opens its image.
     *
     * @param blockSize the logical block size to export (RBD images are byte-addressed; 512 or 4096)
     * @throws IOException when the cluster cannot be reached, the pool or image does not exist, or RBD backstores
     *         are unavailable here (the message says why)
     */
    public static AsyncBackstore open(RbdConfig config, int blockSize) throws IOException {
        if (OPEN == null) {
            throw new IOException(UNAVAILABLE);
        }
        if (blockSize != 512 && blockSize != 4096) {
            throw new IllegalArgumentException("block size must be 512 or 4096, not " + blockSize);
        }
        try {
            return (AsyncBackstore) OPEN.invokeExact(config, blockSize);
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException(t);
        }
    }
}
