package io.hostwide.iscsi.login;

import io.hostwide.iscsi.spec.TextKey;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;

/** CHAP arithmetic: RFC 1994 §4.1 response = H(Identifier || secret || Challenge); RFC 7143 §12.1.3 encodings. */
public final class Chap {
    private Chap() {}

    /** The longest challenge we accept from an initiator, in bytes (RFC 7143 §12.1.3 bounds binary values). */
    public static final int MAX_CHALLENGE = 1024;

    /** The JCA digest name of a CHAP_A algorithm we support, or null. IANA "PPP Authentication Algorithms". */
    public static String digestName(int algorithm) {
        return switch (algorithm) {
            case TextKey.CHAP_MD5 -> "MD5";
            case TextKey.CHAP_SHA1 -> "SHA-1";
            case TextKey.CHAP_SHA256 -> "SHA-256";
            case TextKey.CHAP_SHA3_256 -> "SHA3-256";
            default -> null;
        };
    }

    /** The digest length of an algorithm; also our challenge length for it. */
    public static int length(int algorithm) {
        return algorithm == TextKey.CHAP_MD5 ? 16 : algorithm == TextKey.CHAP_SHA1 ? 20 : 32;
    }

    /** RFC 1994 §4.1: H(id || secret || challenge). */
    public static byte[] response(int algorithm, int identifier, byte[] secret, byte[] challenge) {
        try {
            MessageDigest md = MessageDigest.getInstance(digestName(algorithm));
            md.update((byte) identifier);
            md.update(secret);
            md.update(challenge);
            return md.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("JDK lacks " + digestName(algorithm), e);
        }
    }

    /** RFC 7143 §6.1 binary values: "0x" hex or "0b" base64. Returns null for anything else or an empty value. */
    public static byte[] decodeBinary(String s) {
        if (s.length() < 3) {
            return null;
        }
        String body = s.substring(2);
        try {
            if (s.startsWith("0x") || s.startsWith("0X")) {
                if ((body.length() & 1) == 1) {
                    body = "0" + body; // RFC 7143 §6.1: an odd number of hex digits has an implied leading 0
                }
                return HexFormat.of().parseHex(body);
            }
            if (s.startsWith("0b") || s.startsWith("0B")) {
                return Base64.getDecoder().decode(body);
            }
        } catch (IllegalArgumentException e) {
            return null;
        }
        return null;
    }

    public static String encodeHex(byte[] b) {
        return "0x" + HexFormat.of().formatHex(b);
    }
}
