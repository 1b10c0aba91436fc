package io.hostwide.iscsi.initiator;

import java.nio.charset.StandardCharsets;

/**
 * A CHAP name and secret held by the initiator (RFC 7143 §12.1.3): ours to prove, or the target's to check for mutual
 * CHAP. The secret never appears in {@link #toString()} or in any message built from this object.
 */
public final class ChapCredentials {
    private final String name;
    private final byte[] secret;

    public ChapCredentials(String name, byte[] secret) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("CHAP user name must not be empty");
        }
        if (secret == null || secret.length == 0) {
            throw new IllegalArgumentException("CHAP secret for user " + name + " must not be empty");
        }
        this.name = name;
        this.secret = secret.clone();
    }

    public static ChapCredentials of(String name, String secret) {
        return new ChapCredentials(name, secret == null ? null : secret.getBytes(StandardCharsets.UTF_8));
    }

    public String name() {
        return name;
    }

    byte[] secret() {
        return secret;
    }

    boolean sameSecret(ChapCredentials o) {
        return o != null && java.security.MessageDigest.isEqual(secret, o.secret);
    }

    @Override
    public String toString() {
        return "ChapCredentials[" + name + ", secret=<redacted>]";
    }
}
