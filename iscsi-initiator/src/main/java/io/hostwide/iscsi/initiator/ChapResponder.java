package io.hostwide.iscsi.initiator;

import io.hostwide.iscsi.login.Chap;
import io.hostwide.iscsi.login.KeyValue;
import io.hostwide.iscsi.spec.TextKey;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.List;
import java.util.Map;

/**
 * The initiator's side of CHAP, RFC 7143 §12.1.3 and RFC 1994 §4.1: answers the target's challenge with our secret
 * and, for mutual CHAP, challenges the target and checks its answer. Failures are {@link LoginException}s that name
 * the step and never a secret, challenge or response.
 */
final class ChapResponder {
    /** CHAP_A we offer, most preferred first: SHA-256, SHA-1, MD5 (IANA PPP authentication algorithm numbers). */
    static final String ALGORITHMS = TextKey.CHAP_SHA256 + "," + TextKey.CHAP_SHA1 + "," + TextKey.CHAP_MD5;

    private static final SecureRandom RANDOM = new SecureRandom();

    private final ChapCredentials ours;
    private final ChapCredentials theirs;
    private int algorithm;
    private int mutualId;
    private byte[] mutualChallenge;

    ChapResponder(ChapCredentials ours, ChapCredentials theirs) {
        this.ours = ours;
        this.theirs = theirs;
    }

    /** From the target's CHAP_A, CHAP_I, CHAP_C: our CHAP_N and CHAP_R, plus CHAP_I/CHAP_C for mutual CHAP. */
    void answer(Map<String, String> keys, List<KeyValue> out) throws LoginException {
        String a = keys.get(TextKey.CHAP_A);
        String i = keys.get(TextKey.CHAP_I);
        String c = keys.get(TextKey.CHAP_C);
        if (a == null || i == null || c == null) {
            throw new LoginException("CHAP: the target sent no CHAP_A/CHAP_I/CHAP_C");
        }
        algorithm = parse(a);
        if (algorithm < 0 || Chap.digestName(algorithm) == null || !ALGORITHMS.contains(Integer.toString(algorithm))) {
            throw new LoginException("CHAP: the target chose an algorithm we did not offer (CHAP_A=" + a + ")");
        }
        int id = parse(i);
        byte[] challenge = Chap.decodeBinary(c);
        if (id < 0 || id > 255 || challenge == null || challenge.length == 0 || challenge.length > Chap.MAX_CHALLENGE) {
            throw new LoginException("CHAP: malformed CHAP_I or CHAP_C from the target");
        }
        out.add(new KeyValue(TextKey.CHAP_N, ours.name()));
        out.add(new KeyValue(TextKey.CHAP_R, Chap.encodeHex(Chap.response(algorithm, id, ours.secret(), challenge))));
        if (theirs != null) {
            mutualId = RANDOM.nextInt(256);
            mutualChallenge = new byte[Chap.length(algorithm)];
            do {
                RANDOM.nextBytes(mutualChallenge);
            } while (MessageDigest.isEqual(mutualChallenge, challenge));   // never reflect its own challenge
            out.add(new KeyValue(TextKey.CHAP_I, Integer.toString(mutualId)));
            out.add(new KeyValue(TextKey.CHAP_C, Chap.encodeHex(mutualChallenge)));
        }
    }

    /** Mutual CHAP: the target's CHAP_N and CHAP_R must prove the configured target secret. */
    void verifyTarget(Map<String, String> keys) throws LoginException {
        if (theirs == null) {
            return;
        }
        String n = keys.get(TextKey.CHAP_N);
        byte[] r = keys.get(TextKey.CHAP_R) == null ? null : Chap.decodeBinary(keys.get(TextKey.CHAP_R));
        if (n == null || r == null) {
            throw new LoginException("mutual CHAP: the target did not answer our challenge");
        }
        byte[] expected = Chap.response(algorithm, mutualId, theirs.secret(), mutualChallenge);
        if (!(MessageDigest.isEqual(r, expected) & n.equals(theirs.name()))) {
            throw new LoginException("mutual CHAP: the target failed to authenticate (wrong name or secret)");
        }
    }

    boolean mutual() {
        return theirs != null;
    }

    private static int parse(String s) {
        try {
            return s.startsWith("0x") || s.startsWith("0X") ? Integer.parseInt(s.substring(2), 16) : Integer.parseInt(s);
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
