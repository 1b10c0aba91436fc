package io.hostwide.iscsi.initiator;

/**
 * Opening an {@code iscsi:} device failed for a reason outside the spec string: the portal refused the connection,
 * the login was refused (the message names the login status), or the LUN is not there. Its {@link #toString()} is the
 * message alone so command-line tools print one clean line.
 */
public final class IscsiOpenException extends RuntimeException {
    IscsiOpenException(String message, Throwable cause) {
        super(message, cause);
    }

    @Override
    public String toString() {
        return getMessage();
    }
}
