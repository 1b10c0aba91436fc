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
 */
public final class BackstoreStatusException extends IOException {
    private final SenseReason reason;
    private final boolean loggedByBackstore;

    public BackstoreStatusException(SenseReason reason, String message) {
        this(reason, message, false);
    }

    public BackstoreStatusException(SenseReason reason, String message, boolean loggedByBackstore) {
        super(message);
        this.reason = reason;
        this.loggedByBackstore = loggedByBackstore;
    }

    public SenseReason reason() { return reason; }

    /** Whether the backstore reports this condition itself, so that the per-command log leaves it out. */
    public boolean loggedByBackstore() { return loggedByBackstore; }
}
