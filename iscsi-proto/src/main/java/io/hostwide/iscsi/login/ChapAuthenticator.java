package io.hostwide.iscsi.login;

import io.hostwide.iscsi.spec.LoginStatus;
import io.hostwide.iscsi.spec.TextKey;
import java.security.MessageDigest;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The target's side of the security stage, RFC 7143 §12.1 (AuthMethod) and §12.1.3 (CHAP, one-way and mutual):
 * <pre>
 *   I: AuthMethod=CHAP,None        T: AuthMethod=CHAP
 *   I: CHAP_A=7,5                  T: CHAP_A=7 CHAP_I=id CHAP_C=0x&lt;challenge&gt;
 *   I: CHAP_N=user CHAP_R=0x..     T: (one-way: nothing)
 *      [CHAP_I=id2 CHAP_C=0x..]    T: (mutual: CHAP_N=target-user CHAP_R=0x..)
 * </pre>
 * Failures return a login status; messages name the step, never a secret, challenge or response.
 */
final class ChapAuthenticator {
    private enum State { START, WAIT_ALGORITHM, WAIT_RESPONSE, DONE }

    private static final int[] PREFERENCE = {TextKey.CHAP_SHA256, TextKey.CHAP_SHA3_256, TextKey.CHAP_SHA1,
            TextKey.CHAP_MD5};

    private final ChapPolicy policy;
    private final Random random;
    private State state = State.START;
    private int algorithm;
    private int identifier;
    private byte[] challenge;
    private String failure;

    ChapAuthenticator(ChapPolicy policy, Random random) {
        this.policy = policy;
        this.random = random;
    }

    boolean authenticated() {
        return state == State.DONE;
    }

    /** True once the peer's identity is settled or no authentication is needed. */
    boolean mayLeaveSecurityStage() {
        return state == State.DONE || (state == State.START && !policy.required());
    }

    /** True after AuthMethod=CHAP was chosen and before the response was checked. */
    boolean inProgress() {
        return state == State.WAIT_ALGORITHM || state == State.WAIT_RESPONSE;
    }

    String failure() {
        return failure;
    }

    /** Handles the security keys of one request (in order of arrival), appending answers. Null means go on. */
    LoginStatus step(Map<String, String> keys, List<KeyValue> answers) {
        String method = keys.get(TextKey.AUTH_METHOD);
        if (method != null) {
            LoginStatus s = authMethod(method, answers);
            if (s != null) {
                return s;
            }
        }
        String a = keys.get(TextKey.CHAP_A);
        if (a != null) {
            LoginStatus s = algorithm(a, answers);
            if (s != null) {
                return s;
            }
        }
        if (keys.containsKey(TextKey.CHAP_N) || keys.containsKey(TextKey.CHAP_R) || keys.containsKey(TextKey.CHAP_I)
                || keys.containsKey(TextKey.CHAP_C)) {
            return response(keys, answers);
        }
        return null;
    }

    private LoginStatus authMethod(String offered, List<KeyValue> answers) {
        if (state != State.START) {
            return fail("AuthMethod offered twice");
        }
        String want = policy.required() ? TextKey.CHAP : TextKey.NONE;
        for (String v : offered.split(",", -1)) {
            if (v.equals(want)) {
                answers.add(new KeyValue(TextKey.AUTH_METHOD, want));
                state = policy.required() ? State.WAIT_ALGORITHM : State.DONE;
                return null;
            }
        }
        answers.add(new KeyValue(TextKey.AUTH_METHOD, TextKey.REJECT));
        return fail("no acceptable AuthMethod offered");
    }

    private LoginStatus algorithm(String offered, List<KeyValue> answers) {
        if (state != State.WAIT_ALGORITHM) {
            return fail("CHAP_A out of sequence");
        }
        int chosen = choose(offered);
        if (chosen < 0) {
            answers.add(new KeyValue(TextKey.CHAP_A, TextKey.REJECT));
            return fail("no supported CHAP_A offered");
        }
        algorithm = chosen;
        identifier = random.nextInt(256);
        challenge = new byte[Chap.length(chosen)];
        random.nextBytes(challenge);
        answers.add(new KeyValue(TextKey.CHAP_A, Integer.toString(chosen)));
        answers.add(new KeyValue(TextKey.CHAP_I, Integer.toString(identifier)));
        answers.add(new KeyValue(TextKey.CHAP_C, Chap.encodeHex(challenge)));
        state = State.WAIT_RESPONSE;
        return null;
    }

    /** The initiator's list is in its order of preference (RFC 7143 §6.2.1): take its first value we support. */
    private static int choose(String offered) {
        for (String v : offered.split(",", -1)) {
            long id = Negotiator.parseNumber(v);
            for (int p : PREFERENCE) {
                if (id == p) {
                    return p;
                }
            }
        }
        return -1;
    }

    private LoginStatus response(Map<String, String> keys, List<KeyValue> answers) {
        if (state != State.WAIT_RESPONSE) {
            return fail("CHAP response out of sequence");
        }
        String name = keys.get(TextKey.CHAP_N);
        String r = keys.get(TextKey.CHAP_R);
        if (name == null || r == null) {
            return fail("CHAP_N or CHAP_R missing");
        }
        byte[] got = Chap.decodeBinary(r);
        byte[] expected = Chap.response(algorithm, identifier, policy.incoming().secret(), challenge);
        // Compare the name and the response together, in constant time for the response.
        boolean ok = got != null && MessageDigest.isEqual(got, expected) & name.equals(policy.incoming().name());
        if (!ok) {
            return fail("CHAP response does not match");
        }
        String mi = keys.get(TextKey.CHAP_I);
        String mc = keys.get(TextKey.CHAP_C);
        if (mi != null || mc != null) {
            LoginStatus s = mutual(mi, mc, answers);
            if (s != null) {
                return s;
            }
        }
        state = State.DONE;
        return null;
    }

    private LoginStatus mutual(String mi, String mc, List<KeyValue> answers) {
        if (mi == null || mc == null) {
            return fail("mutual CHAP needs both CHAP_I and CHAP_C");
        }
        if (policy.outgoing() == null) {
            return fail("mutual CHAP asked but no target credentials configured");
        }
        long id = Negotiator.parseNumber(mi);
        byte[] theirs = Chap.decodeBinary(mc);
        if (id < 0 || id > 255 || theirs == null || theirs.length == 0 || theirs.length > Chap.MAX_CHALLENGE) {
            return fail("malformed mutual CHAP_I or CHAP_C");
        }
        // RFC 7143 §12.1.3: a challenge equal to the one we sent is a reflection attack.
        if (MessageDigest.isEqual(theirs, challenge)) {
            return fail("reflected CHAP challenge");
        }
        answers.add(new KeyValue(TextKey.CHAP_N, policy.outgoing().name()));
        answers.add(new KeyValue(TextKey.CHAP_R,
                Chap.encodeHex(Chap.response(algorithm, (int) id, policy.outgoing().secret(), theirs))));
        return null;
    }

    private LoginStatus fail(String why) {
        failure = why;
        return LoginStatus.AUTHENTICATION_FAILURE;
    }
}
