package io.hostwide.iscsi.login;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A CHAP name and secret (RFC 7143 §12.1.3). The secret is never printed: {@link #toString()} shows the name only,
 * and no exception message built here contains it.
 */
public final class ChapSecret {
    private final String name;
    private final byte[] secret;

    public ChapSecret(String name, byte[] secret) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("CHAP name must not be empty");
        }
        if (secret == null || secret.length == 0) {
            throw new IllegalArgumentException("CHAP secret for " + name + " must not be empty");
        }
        this.name = name;
        this.secret = secret.clone();
    }

    public static ChapSecret of(String name, String secret) {
        return new ChapSecret(name, secret.getBytes(StandardCharsets.UTF_8));
    }

    public String name() {
        return name;
    }

    byte[] secret() {
        return secret;
    }

    /** Constant-time comparison of the secrets of two credentials (mutual CHAP must use distinct secrets). */
    boolean sameSecret(ChapSecret other) {
        return other != null && java.security.MessageDigest.isEqual(secret, other.secret);
    }

    @Override
    public String toString() {
        return "ChapSecret[" + name + ", secret=<redacted " + secret.length + " bytes>]";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ChapSecret c && c.name.equals(name) && Arrays.equals(c.secret, secret);
    }

    @Override
    public int hashCode() {
        return name.hashCode();
    }
}
