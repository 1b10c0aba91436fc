package io.hostwide.tcm.spi;

import java.io.IOException;

/**
 * A backstore failure that is not a medium error and has its own answer: BUSY while the storage is slow to answer
 * (an RBD operation timed out: the initiator retries), NOT READY while it has lost access (an RBD client blocklisted
 * after losing its exclusive lock: the initiator fails over). The handler fails the command with {@link #reason()}
 * instead of MEDIUM ERROR.
 */
public final class BackstoreStatusException extends IOException {
    private final SenseReason reason;

    public BackstoreStatusException(SenseReason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public SenseReason reason() { return reason; }
}
