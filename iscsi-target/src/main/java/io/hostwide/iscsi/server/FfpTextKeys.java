package io.hostwide.iscsi.server;

import io.hostwide.iscsi.login.KeyDefinition;
import io.hostwide.iscsi.login.KeyValue;
import io.hostwide.iscsi.spec.TextKey;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Which keys a Text Request may carry in the full feature phase, and the answer to each (RFC 7143 §6.2, §6.6 and
 * the "Use" of each key in §12-§13):
 * <ul>
 *   <li>SendTargets (FFPO): answered by {@code sendTargets} (Appendix C).
 *   <li>MaxRecvDataSegmentLength (ALL, declarative): the initiator's new limit for what we send on this
 *       connection; a value outside 512..2^24-1 is answered Reject (§6.2.1: an inadmissible value).
 *   <li>InitiatorAlias (ALL, declarative): taken, nothing to answer.
 *   <li>A key that is "Irrelevant when SessionType=Discovery" (MaxBurstLength, InitialR2T, ...) in a discovery
 *       session: answered Irrelevant (§6.2, §13).
 *   <li>Every other key we know is login-only (LO, IO), a security key, or one only the target declares: trying to
 *       renegotiate or redeclare it is a protocol error the target answers with a Reject PDU, reason Protocol Error
 *       (§6.6), and the whole request is not answered.
 *   <li>Vendor keys (X-, X#) and keys we do not know: NotUnderstood (§6.2).
 * </ul>
 */
final class FfpTextKeys {
    /** What a request comes to. */
    record Outcome(List<KeyValue> answers, String protocolError, int maxRecvDataSegmentLength) {
        static Outcome error(String why) {
            return new Outcome(List.of(), why, -1);
        }
    }

    private FfpTextKeys() {}

    static Outcome answer(List<KeyValue> pairs, boolean discovery, Function<String, List<KeyValue>> sendTargets) {
        List<KeyValue> answers = new ArrayList<>();
        int maxRecv = -1;
        for (KeyValue kv : pairs) {
            String key = kv.key();
            if (key.equals(TextKey.SEND_TARGETS)) {
                answers.addAll(sendTargets.apply(kv.value()));
            } else if (key.equals(TextKey.MAX_RECV_DATA_SEGMENT_LENGTH)) {
                long v = numeric(kv.value());
                if (v < 512 || v > (1 << 24) - 1) {
                    answers.add(new KeyValue(key, TextKey.REJECT));
                } else {
                    maxRecv = (int) v;
                }
            } else if (key.equals(TextKey.INITIATOR_ALIAS)) {
                continue; // a declaration: nothing to answer
            } else {
                KeyDefinition d = KeyDefinition.of(key);
                if (d == null) {
                    answers.add(new KeyValue(key, TextKey.NOT_UNDERSTOOD)); // X-, X# and unknown keys
                } else if (discovery && d.irrelevantInDiscovery()) {
                    answers.add(new KeyValue(key, TextKey.IRRELEVANT));
                } else {
                    return Outcome.error(key + " may not be negotiated or declared in the full feature phase");
                }
            }
        }
        return new Outcome(answers, null, maxRecv);
    }

    /** A decimal or 0x hex value (§6.1 numerical values), or -1 when it is not one. */
    private static long numeric(String s) {
        try {
            if (s.startsWith("0x") || s.startsWith("0X")) {
                return s.length() > 2 && s.length() <= 10 ? Long.parseLong(s.substring(2), 16) : -1;
            }
            return s.isEmpty() || s.length() > 10 ? -1 : Long.parseLong(s);
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
