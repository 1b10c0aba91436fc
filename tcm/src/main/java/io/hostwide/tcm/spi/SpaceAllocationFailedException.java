package io.hostwide.tcm.spi;

import java.io.IOException;

/**
 * A backstore could not allocate the storage a write needs (a thin LU whose memory or space budget is spent). The
 * core answers DATA PROTECT / SPACE ALLOCATION FAILED WRITE PROTECT (SBC-4 §4.7.3.6) instead of the MEDIUM ERROR
 * other {@link IOException}s become, so the initiator can tell "free some space" from "the medium is bad". A
 * backstore that throws it has written none of the blocks of that call.
 */
public class SpaceAllocationFailedException extends IOException {
    public SpaceAllocationFailedException(String message) {
        super(message);
    }

    public SpaceAllocationFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
