package io.hostwide.iscsi.initiator;

import io.hostwide.iscsi.login.KeyValue;
import io.hostwide.iscsi.login.NegotiatedParameters;
import io.hostwide.iscsi.spec.TextKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The initiator's operational offer and the reading of the target's answers, RFC 7143 §13. Each key's result follows
 * its result function (§6.2.2: Minimum, Maximum, OR, AND); an unanswered key, or one answered Reject, Irrelevant or
 * NotUnderstood, takes the RFC default.
 */
final class InitiatorNegotiation {
    private InitiatorNegotiation() {}

    /** Keys always answered by the target as declarations, never offers we must answer. */
    private static final List<String> DECLARATIVE = List.of(TextKey.TARGET_ALIAS, TextKey.TARGET_PORTAL_GROUP_TAG,
            TextKey.MAX_RECV_DATA_SEGMENT_LENGTH, TextKey.TARGET_ADDRESS);

    static List<KeyValue> offer(InitiatorConfig c, boolean leading) {
        List<KeyValue> k = new ArrayList<>();
        k.add(new KeyValue(TextKey.HEADER_DIGEST, c.headerDigest ? TextKey.CRC32C + "," + TextKey.NONE : TextKey.NONE));
        k.add(new KeyValue(TextKey.DATA_DIGEST, c.dataDigest ? TextKey.CRC32C + "," + TextKey.NONE : TextKey.NONE));
        k.add(new KeyValue(TextKey.MAX_RECV_DATA_SEGMENT_LENGTH, Integer.toString(c.maxRecvDataSegmentLength)));
        if (!leading) {
            return k;   // the rest are session-wide (LO), settled by the leading login
        }
        k.add(new KeyValue(TextKey.MAX_CONNECTIONS, Integer.toString(c.connections)));
        k.add(new KeyValue(TextKey.INITIAL_R2T, c.initialR2t ? TextKey.YES : TextKey.NO));
        k.add(new KeyValue(TextKey.IMMEDIATE_DATA, c.immediateData ? TextKey.YES : TextKey.NO));
        k.add(new KeyValue(TextKey.MAX_BURST_LENGTH, Integer.toString(c.maxBurstLength)));
        k.add(new KeyValue(TextKey.FIRST_BURST_LENGTH, Integer.toString(c.firstBurstLength)));
        k.add(new KeyValue(TextKey.DEFAULT_TIME2WAIT, "2"));
        k.add(new KeyValue(TextKey.DEFAULT_TIME2RETAIN, "0"));   // ERL 0 keeps nothing for reassignment
        k.add(new KeyValue(TextKey.MAX_OUTSTANDING_R2T, "1"));
        k.add(new KeyValue(TextKey.DATA_PDU_IN_ORDER, TextKey.YES));
        k.add(new KeyValue(TextKey.DATA_SEQUENCE_IN_ORDER, TextKey.YES));
        k.add(new KeyValue(TextKey.ERROR_RECOVERY_LEVEL, "0"));
        return k;
    }

    /** Answers keys the target offered on its own (not answers to ours): NotUnderstood, RFC 7143 §6.2. */
    static List<KeyValue> answer(Map<String, String> target, List<KeyValue> offered) {
        List<KeyValue> out = new ArrayList<>();
        for (String key : target.keySet()) {
            boolean ours = false;
            for (KeyValue kv : offered) {
                ours |= kv.key().equals(key);
            }
            if (!ours && !DECLARATIVE.contains(key)) {
                out.add(new KeyValue(key, TextKey.NOT_UNDERSTOOD));
            }
        }
        return out;
    }

    /**
     * The settled parameters from the target's answers; {@code session} (non-null for a connection joining a
     * session) supplies the session-wide values.
     */
    static NegotiatedParameters settle(InitiatorConfig c, Map<String, String> t, NegotiatedParameters session)
            throws LoginException {
        boolean hd = digest(t.get(TextKey.HEADER_DIGEST), c.headerDigest);
        boolean dd = digest(t.get(TextKey.DATA_DIGEST), c.dataDigest);
        // §13.12: the target's declaration; 8192 when it declares nothing.
        int maxSend = (int) number(t.get(TextKey.MAX_RECV_DATA_SEGMENT_LENGTH), 8192, 512, 16_777_215);
        NegotiatedParameters mine;
        if (session != null) {
            mine = new NegotiatedParameters(hd, dd, c.maxRecvDataSegmentLength, maxSend, 0, 0, true, false, 1, true,
                    true, 0, 1, 2, 0);
            return mine.forConnectionOf(session);
        }
        int erl = (int) number(t.get(TextKey.ERROR_RECOVERY_LEVEL), 0, 0, 2);
        if (erl != 0) {
            throw new LoginException("the target settled ErrorRecoveryLevel=" + erl + " although we offered 0");
        }
        int maxBurst = (int) Math.min(c.maxBurstLength, number(t.get(TextKey.MAX_BURST_LENGTH), 262_144, 512, 16_777_215));
        int firstBurst = (int) Math.min(c.firstBurstLength,
                number(t.get(TextKey.FIRST_BURST_LENGTH), 65_536, 512, 16_777_215));
        boolean initialR2t = c.initialR2t || yes(t.get(TextKey.INITIAL_R2T), true);          // §13.10: OR
        boolean immediate = c.immediateData && yes(t.get(TextKey.IMMEDIATE_DATA), true);     // §13.11: AND
        int maxConn = (int) Math.min(c.connections, number(t.get(TextKey.MAX_CONNECTIONS), 1, 1, 65_535));
        int t2w = (int) Math.max(2, number(t.get(TextKey.DEFAULT_TIME2WAIT), 2, 0, 3600));      // §13.15: Max
        int r2t = (int) number(t.get(TextKey.MAX_OUTSTANDING_R2T), 1, 1, 65_535);
        return new NegotiatedParameters(hd, dd, c.maxRecvDataSegmentLength, maxSend, maxBurst,
                Math.min(firstBurst, maxBurst), initialR2t, immediate, r2t, true, true, 0, maxConn, t2w, 0);
    }

    private static boolean digest(String v, boolean offered) throws LoginException {
        if (v == null || !v.equals(TextKey.CRC32C)) {
            return false;
        }
        if (!offered) {
            throw new LoginException("the target chose CRC32C digests we did not offer");
        }
        return true;
    }

    private static boolean yes(String v, boolean dflt) {
        if (TextKey.YES.equals(v)) {
            return true;
        }
        return TextKey.NO.equals(v) ? false : dflt;
    }

    /** A numeric answer, or {@code dflt} when absent or not a number in range (Reject, Irrelevant, junk). */
    private static long number(String v, long dflt, long min, long max) {
        if (v == null) {
            return dflt;
        }
        try {
            long n = v.startsWith("0x") ? Long.parseLong(v.substring(2), 16) : Long.parseLong(v);
            return n < min || n > max ? dflt : n;
        } catch (NumberFormatException e) {
            return dflt;
        }
    }
}
