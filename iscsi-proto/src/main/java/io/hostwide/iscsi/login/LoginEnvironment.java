package io.hostwide.iscsi.login;

/** What the login state machine asks of the server; tests supply a table. */
public interface LoginEnvironment {
    /** The target of that name, or null (login fails with 0203, RFC 7143 §11.13.5). */
    LoginTarget target(String name);

    /** CHAP for discovery sessions. */
    ChapPolicy discoveryChap();

    NegotiationPolicy policy();

    /** Admits the session or connection as the final Login Response goes out. */
    Admission admit(SessionRequest request);
}
