package io.hostwide.tcm.spi;

import java.time.Duration;

/**
 * Where the reservation state of one logical unit lives when several gateways export it (issue 16): one
 * versioned blob that every gateway caches, changed only by compare-and-set, with a watch that tells each
 * gateway of a change before the writer's command completes. The core keeps the state's meaning (the blob is
 * {@code io.hostwide.tcm.lu.SharedPrDocument}); a store only keeps bytes, versions and watchers.
 *
 * <p>The contract, and the librados calls a RADOS implementation makes for it (one object per LU, e.g.
 * {@code hostwide_pr.<image id>} next to the RBD header; the version is a 20-digit zero-padded decimal in the
 * xattr {@code hostwide.pr.version} so that a byte-wise compare is a numeric one):
 * <ul>
 *   <li>{@link #load()}: the current bytes and version. RADOS: one read op, {@code rados_read_op_getxattr}
 *       (version) + {@code rados_read_op_read} (bytes), {@code rados_read_op_operate}, so both come from the same
 *       object version; {@code -ENOENT} is the empty state, version 0.</li>
 *   <li>{@link #compareAndSet}: replace the bytes if the version is still {@code expected}. RADOS: one write op,
 *       {@code rados_write_op_cmpxattr(EQ, expected)} (or {@code rados_write_op_create(EXCLUSIVE)} when expected
 *       is 0) + {@code rados_write_op_write_full} + {@code rados_write_op_setxattr(expected + 1)},
 *       {@code rados_write_op_operate}; {@code -ECANCELED} (or {@code -EEXIST}) is a lost race:
 *       {@link #LOST}.</li>
 *   <li>{@link #watch}: {@code rados_watch3} with a watch callback that runs {@link Watcher#notified} and then
 *       {@code rados_notify_ack}, and an error callback that runs {@link Watcher#broken} (watch timeout,
 *       {@code -ENOTCONN}, {@code -EBLOCKLISTED}); {@link Watch#close()} is {@code rados_unwatch2}.</li>
 *   <li>{@link #notifyWatchers}: {@code rados_notify2} with the timeout; it returns when every watcher acked.
 *       On {@code -ETIMEDOUT} the reply buffer names the watchers (gid, cookie) that did not ack; the store then
 *       fences them before returning: {@code rados_list_watchers} gives their addresses and
 *       {@code rados_blocklist_add} blocklists each, so their watch breaks and they can no longer write. A
 *       silent gateway therefore either has the change or is fenced when the writer's command completes.</li>
 *   <li>Unreachable (OSD op timeout {@code rados_osd_op_timeout}, {@code -ETIMEDOUT}, {@code -ENOTCONN},
 *       {@code -ESHUTDOWN}, this client blocklisted): {@link UnavailableException}.</li>
 * </ul>
 * Calls may block for a network round trip; the core never makes them on the per-command reservation check,
 * only from PERSISTENT RESERVE OUT/IN, RESERVE/RELEASE, resets and recovery.
 */
public interface ReservationStore {

    /** {@link #compareAndSet} result when the stored version was no longer the expected one. */
    long LOST = -1;

    /** The stored bytes and their version; version 0 and no bytes when nothing was ever stored. */
    record Versioned(long version, byte[] bytes) {}

    /** @return the current version and bytes */
    Versioned load() throws UnavailableException;

    /**
     * Stores {@code bytes} if the stored version is still {@code expected}.
     *
     * @return the new version (greater than {@code expected}), or {@link #LOST}
     */
    long compareAndSet(long expected, byte[] bytes) throws UnavailableException;

    /**
     * Delivers {@code payload} to every watcher (the caller's own included) and returns once each acknowledged,
     * or, after {@code timeout}, once the watchers that did not were fenced (their watches broken).
     *
     * @return true when every watcher acknowledged in time
     */
    boolean notifyWatchers(byte[] payload, Duration timeout) throws UnavailableException;

    /** Starts watching; {@code w} is called until the returned watch is closed or broken. */
    Watch watch(Watcher w) throws UnavailableException;

    /** Callbacks of one watch. */
    interface Watcher {
        /**
         * A notify: returning acknowledges it. Runs on the store's thread; must not wait for the lock a writer
         * holds while it notifies (that writer is waiting for this acknowledgement).
         */
        void notified(byte[] payload);

        /**
         * The watch is gone (partition, blocklist, watch timeout): changes may be missed from now on. Must not
         * block; may run on any thread, also the notifier's when it fences this watcher.
         */
        void broken(Exception cause);
    }

    /** A live watch. */
    interface Watch extends AutoCloseable {
        /** Whether the watch still delivers (RADOS: {@code rados_watch_check} &ge; 0). */
        boolean healthy();

        @Override
        void close();
    }

    /** The store cannot be reached, or this client was fenced from it. */
    final class UnavailableException extends Exception {
        public UnavailableException(String message) { super(message); }

        public UnavailableException(String message, Throwable cause) { super(message, cause); }
    }
}
