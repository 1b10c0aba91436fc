package io.hostwide.iscsi.login;

import io.hostwide.iscsi.pdu.LoginResponse;

/**
 * What one Login Request produced: the response to send and what the connection does next.
 *
 * @param session set when {@code outcome} is FULL_FEATURE
 * @param reason why the login failed, for logs (never holds a secret), or null
 */
public record LoginStep(LoginResponse response, Outcome outcome, SessionRequest session, Admission admission,
        String reason) {

    public enum Outcome {
        /** More login exchanges follow. */
        CONTINUE,
        /** The connection enters full feature phase with {@code session}. */
        FULL_FEATURE,
        /** The response carries a non-zero status class; the connection closes after sending it (RFC 7143 §11.13.5). */
        FAILED
    }
}
