package io.hostwide.tcm.spi;

import java.io.IOException;

/**
 * A backstore failure that is not a medium error and has its own answer: BUSY while the storage is slow to answer
 * (an RBD operation timed out: the initiator retries), NOT READY while it has lost access (an RBD client blocklisted
 * after losing its exclusive lock: the initiator fails over). The handler fails the command with {@link #reason()}
 * instead of MEDIUM ERROR.
 *
 * <p>{@link #loggedByBackstore()}: the backstore logs this condition itself, once for the episode rather than once
 * per command (an RBD client fenced and reopening answers BUSY to every command meanwhile: one line when fenced,
 * one when reopened with the count), so {@link DataPathErrors} counts it without a line of its own.
 *
 * <p>{@link #dstRetained()}: an asynchronous read answered before its storage finished with the read's destination
 * buffer (a watchdog's BUSY for a read librbd still holds, filling the command's own Data-In buffer in place): the
 * storage may still write into that buffer, so the caller must never use it again (the backstore keeps it referenced
 * until the storage is done with it); see {@link AsyncBackstore}.
 */
public final class BackstoreStatusException extends IOException {
    private final SenseReason reason;
    private final boolean loggedByBackstore;
    private final boolean dstRetained;

    public BackstoreStatusException(SenseReason reason, String message) {
        this(reason, message, false);
    }

    public BackstoreStatusException(SenseReason reason, String message, boolean loggedByBackstore) {
        this(reason, message, loggedByBackstore, false);
    }

    /** @param dstRetained the storage may still write into the failed read's destination buffer */
    public BackstoreStatusException(SenseReason reason, String message, boolean loggedByBackstore,
                                    boolean dstRetained) {
        super(message);
        this.reason = reason;
        this.loggedByBackstore = loggedByBackstore;
        this.dstRetained = dstRetained;
    }

    public SenseReason reason() { return reason; }

    /** Whether the backstore reports this condition itself, so that the per-command log leaves it out. */
    public boolean loggedByBackstore() { return loggedByBackstore; }

    /** Whether the failed read's destination buffer may still be written by the storage: never reuse it. */
    public boolean dstRetained() { return dstRetained; }
}
