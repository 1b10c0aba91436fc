package io.hostwide.iscsi.login;

/**
 * The CHAP settings of a target or of discovery sessions.
 *
 * @param incoming the name/secret initiators must prove (null: no authentication required, AuthMethod=None)
 * @param outgoing the name/secret the target proves for mutual CHAP when the initiator asks (null: mutual refused)
 */
public record ChapPolicy(ChapSecret incoming, ChapSecret outgoing) {
    public static final ChapPolicy NONE = new ChapPolicy(null, null);

    public ChapPolicy {
        if (outgoing != null && incoming == null) {
            throw new IllegalArgumentException("mutual CHAP needs incoming CHAP credentials too");
        }
        // RFC 7143 §12.1.3: a secret must not serve both directions, or reflection attacks work.
        if (outgoing != null && incoming.sameSecret(outgoing)) {
            throw new IllegalArgumentException("mutual CHAP secrets must differ between the two directions");
        }
    }

    public boolean required() {
        return incoming != null;
    }
}
