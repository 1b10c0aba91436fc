package io.hostwide.iscsi.initiator;

import io.hostwide.iscsi.spec.LoginStatus;
import java.io.IOException;

/**
 * A login the target refused (RFC 7143 §11.13.5 Status-Class/Status-Detail) or that broke the protocol. The message
 * names the status (e.g. {@code AUTHENTICATION_FAILURE (0x02/0x01)}) and never contains a secret.
 */
public final class LoginException extends IOException {
    private final int statusClass;
    private final int statusDetail;

    LoginException(int statusClass, int statusDetail, String context) {
        super(context + ": login refused with " + describe(statusClass, statusDetail));
        this.statusClass = statusClass;
        this.statusDetail = statusDetail;
    }

    LoginException(String message) {
        super(message);
        this.statusClass = -1;
        this.statusDetail = -1;
    }

    /** The Status-Class of the refusal, or -1 for a protocol failure on our side of the exchange. */
    public int statusClass() {
        return statusClass;
    }

    public int statusDetail() {
        return statusDetail;
    }

    /** True for Status-Class 2 (initiator error): retrying the same login will not help. */
    public boolean permanent() {
        return statusClass == LoginStatus.CLASS_INITIATOR_ERROR;
    }

    static String describe(int statusClass, int statusDetail) {
        String name = "unknown status";
        for (LoginStatus s : LoginStatus.values()) {
            if (s.statusClass == statusClass && s.statusDetail == statusDetail) {
                name = s.name();
            }
        }
        return String.format("%s (0x%02x/0x%02x)", name, statusClass, statusDetail);
    }
}
