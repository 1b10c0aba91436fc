package io.hostwide.iscsi.login;

import io.hostwide.iscsi.spec.LoginStatus;
import io.hostwide.iscsi.spec.TextKey;
import java.util.List;

/**
 * The target's side of operational text negotiation (RFC 7143 §6.2, §13): answers each offered key by its type and
 * remembers the result. Names, SessionType and security keys are the login state machine's; this class gets the rest.
 * Not thread-safe: one per login (or per Text negotiation in full feature phase).
 */
public final class Negotiator {
    private final NegotiationPolicy policy;
    private final boolean leading;
    private boolean discovery;

    private boolean headerDigest;
    private boolean dataDigest;
    private int initiatorMaxRecv = 8192; // RFC 7143 §13.12 default
    private int maxBurstLength = 262144;
    private int firstBurstLength = 65536;
    private boolean initialR2t = true;
    private boolean immediateData = true;
    private int maxOutstandingR2t = 1;
    private boolean dataPduInOrder = true;
    private boolean dataSequenceInOrder = true;
    private int errorRecoveryLevel;
    private int maxConnections = 1;
    private int defaultTime2Wait = 2;
    private int defaultTime2Retain = 20;

    /** Why the last {@link #offer} failed, for logs (never contains values of security keys). */
    private String failure;

    public Negotiator(NegotiationPolicy policy, boolean leading) {
        this.policy = policy;
        this.leading = leading;
    }

    public void discovery(boolean discovery) {
        this.discovery = discovery;
    }

    public String failure() {
        return failure;
    }

    /**
     * Answers one operational key. Appends the answer (if the key needs one) to {@code answers} and returns null, or
     * returns the login status that ends the login (an initiator error for a malformed or out-of-range value).
     */
    public LoginStatus offer(KeyValue kv, List<KeyValue> answers) {
        String key = kv.key();
        String value = kv.value();
        switch (key) {
            case TextKey.IF_MARKER, TextKey.OF_MARKER -> { // RFC 7143 §13.26: obsolete; "No" is allowed
                answers.add(new KeyValue(key, TextKey.NO));
                return null;
            }
            case TextKey.IF_MARK_INT, TextKey.OF_MARK_INT -> {
                answers.add(new KeyValue(key, TextKey.REJECT));
                return null;
            }
            default -> { }
        }
        KeyDefinition def = KeyDefinition.of(key);
        if (def == null) { // RFC 7143 §6.2: keys not understood, including X- and X# keys
            answers.add(new KeyValue(key, TextKey.NOT_UNDERSTOOD));
            return null;
        }
        if (def.targetDeclares()) {
            return fail(LoginStatus.INITIATOR_ERROR, key + " is declared by targets only");
        }
        if (key.equals(TextKey.SEND_TARGETS)) { // RFC 7143 §13.3: full feature phase only
            answers.add(new KeyValue(key, TextKey.IRRELEVANT));
            return null;
        }
        if ((def.irrelevantInDiscovery() && discovery) || (def.leadingOnly() && !leading)) {
            answers.add(new KeyValue(key, TextKey.IRRELEVANT));
            return null;
        }
        return switch (def.type()) {
            case NUMERIC_MIN, NUMERIC_MAX -> numeric(def, value, answers);
            case BOOLEAN_OR, BOOLEAN_AND -> bool(def, value, answers);
            case LIST -> list(def, value, answers);
            case DECLARATIVE -> declarative(def, value);
        };
    }

    private LoginStatus numeric(KeyDefinition def, String value, List<KeyValue> answers) {
        long offered = parseNumber(value);
        if (offered < def.min() || offered > def.max()) {
            return fail(LoginStatus.INITIATOR_ERROR, def.name() + " value out of range");
        }
        long ours = ours(def.name());
        long result = def.type() == KeyType.NUMERIC_MIN ? Math.min(offered, ours) : Math.max(offered, ours);
        if (def.name().equals(TextKey.FIRST_BURST_LENGTH)) {
            result = Math.min(result, maxBurstLength); // §13.14: FirstBurstLength <= MaxBurstLength
        }
        store(def.name(), (int) result);
        answers.add(new KeyValue(def.name(), Long.toString(result)));
        return null;
    }

    private long ours(String key) {
        return switch (key) {
            case TextKey.MAX_CONNECTIONS -> policy.maxConnections();
            case TextKey.MAX_BURST_LENGTH -> policy.maxBurstLength();
            case TextKey.FIRST_BURST_LENGTH -> policy.firstBurstLength();
            case TextKey.MAX_OUTSTANDING_R2T -> policy.maxOutstandingR2t();
            case TextKey.DEFAULT_TIME2WAIT -> policy.defaultTime2Wait();
            case TextKey.DEFAULT_TIME2RETAIN -> policy.defaultTime2Retain();
            case TextKey.ERROR_RECOVERY_LEVEL -> 0; // ERL 0 only: higher offers are negotiated down
            case TextKey.ISCSI_PROTOCOL_LEVEL -> 1; // RFC 7144 §2.1: RFC 7143 is level 1
            default -> throw new IllegalStateException("no policy for " + key);
        };
    }

    private void store(String key, int v) {
        switch (key) {
            case TextKey.MAX_CONNECTIONS -> maxConnections = v;
            case TextKey.MAX_BURST_LENGTH -> maxBurstLength = v;
            case TextKey.FIRST_BURST_LENGTH -> firstBurstLength = v;
            case TextKey.MAX_OUTSTANDING_R2T -> maxOutstandingR2t = v;
            case TextKey.DEFAULT_TIME2WAIT -> defaultTime2Wait = v;
            case TextKey.DEFAULT_TIME2RETAIN -> defaultTime2Retain = v;
            case TextKey.ERROR_RECOVERY_LEVEL -> errorRecoveryLevel = v;
            default -> { } // iSCSIProtocolLevel: answered, nothing to keep
        }
    }

    private LoginStatus bool(KeyDefinition def, String value, List<KeyValue> answers) {
        boolean offered;
        if (TextKey.YES.equals(value)) {
            offered = true;
        } else if (TextKey.NO.equals(value)) {
            offered = false;
        } else {
            return fail(LoginStatus.INITIATOR_ERROR, def.name() + " is neither Yes nor No");
        }
        boolean ours = switch (def.name()) {
            case TextKey.INITIAL_R2T -> policy.initialR2t();
            case TextKey.IMMEDIATE_DATA -> policy.immediateData();
            default -> true; // DataPDUInOrder, DataSequenceInOrder: we deliver and expect data in order
        };
        boolean result = def.type() == KeyType.BOOLEAN_OR ? offered || ours : offered && ours;
        switch (def.name()) {
            case TextKey.INITIAL_R2T -> initialR2t = result;
            case TextKey.IMMEDIATE_DATA -> immediateData = result;
            case TextKey.DATA_PDU_IN_ORDER -> dataPduInOrder = result;
            default -> dataSequenceInOrder = result;
        }
        answers.add(new KeyValue(def.name(), result ? TextKey.YES : TextKey.NO));
        return null;
    }

    private LoginStatus list(KeyDefinition def, String value, List<KeyValue> answers) {
        String chosen = null;
        for (String v : value.split(",", -1)) {
            if (acceptable(def.name(), v)) {
                chosen = v;
                break;
            }
        }
        if (chosen == null) { // RFC 7143 §6.2.1: no acceptable value; the key keeps its default
            answers.add(new KeyValue(def.name(), TextKey.REJECT));
            return null;
        }
        boolean crc = chosen.equals(TextKey.CRC32C);
        switch (def.name()) {
            case TextKey.HEADER_DIGEST -> headerDigest = crc;
            case TextKey.DATA_DIGEST -> dataDigest = crc;
            default -> { }
        }
        answers.add(new KeyValue(def.name(), chosen));
        return null;
    }

    private boolean acceptable(String key, String v) {
        return switch (key) {
            case TextKey.HEADER_DIGEST -> v.equals(TextKey.NONE) || (v.equals(TextKey.CRC32C) && policy.headerDigestCrc32c());
            case TextKey.DATA_DIGEST -> v.equals(TextKey.NONE) || (v.equals(TextKey.CRC32C) && policy.dataDigestCrc32c());
            case TextKey.TASK_REPORTING -> v.equals("RFC3720");
            default -> false;
        };
    }

    private LoginStatus declarative(KeyDefinition def, String value) {
        if (def.name().equals(TextKey.MAX_RECV_DATA_SEGMENT_LENGTH)) {
            long v = parseNumber(value);
            if (v < def.min() || v > def.max()) {
                return fail(LoginStatus.INITIATOR_ERROR, "MaxRecvDataSegmentLength out of range");
            }
            initiatorMaxRecv = (int) v;
        }
        return null; // InitiatorAlias and the like: recorded by the caller, not answered
    }

    /** The key=value the target declares on its own in the operational stage (RFC 7143 §13.12). */
    public KeyValue declaration() {
        return new KeyValue(TextKey.MAX_RECV_DATA_SEGMENT_LENGTH, Integer.toString(policy.maxRecvDataSegmentLength()));
    }

    /**
     * RFC 7143 §6.1 numerical values: decimal or 0x-prefixed hexadecimal, unsigned. Returns -1 when malformed.
     */
    static long parseNumber(String s) {
        if (s.isEmpty() || s.length() > 20) {
            return -1;
        }
        int radix = 10;
        String digits = s;
        if (s.startsWith("0x") || s.startsWith("0X")) {
            radix = 16;
            digits = s.substring(2);
        }
        if (digits.isEmpty()) {
            return -1;
        }
        long v = 0;
        for (int i = 0; i < digits.length(); i++) {
            int d = Character.digit(digits.charAt(i), radix);
            if (d < 0) {
                return -1;
            }
            v = v * radix + d;
            if (v > 0xffff_ffffL) {
                return Long.MAX_VALUE;
            }
        }
        return v;
    }

    private LoginStatus fail(LoginStatus status, String why) {
        failure = why;
        return status;
    }

    /** The settled parameters; FirstBurstLength is clamped to MaxBurstLength (RFC 7143 §13.14). */
    public NegotiatedParameters result() {
        return new NegotiatedParameters(headerDigest, dataDigest, initiatorMaxRecv,
                policy.maxRecvDataSegmentLength(), maxBurstLength, Math.min(firstBurstLength, maxBurstLength),
                initialR2t, immediateData, maxOutstandingR2t, dataPduInOrder, dataSequenceInOrder, errorRecoveryLevel,
                maxConnections, defaultTime2Wait, defaultTime2Retain);
    }
}
