package io.hostwide.iscsi.login;

import io.hostwide.iscsi.spec.TextKey;
import java.util.Map;
import java.util.TreeMap;

/**
 * Every key of RFC 7143 §12-§13 the target understands, with its type, range and use.
 *
 * @param leadingOnly "LO": only on the leading connection of a session
 * @param irrelevantInDiscovery "Irrelevant when: SessionType=Discovery"
 * @param security a security-stage key (§12), invalid in the operational stage
 * @param targetDeclares sent by the target only; an initiator sending it makes a protocol error
 */
public record KeyDefinition(
        String name, KeyType type, long min, long max, String defaultValue, boolean leadingOnly,
        boolean irrelevantInDiscovery, boolean security, boolean targetDeclares) {

    private static final long MAX_24 = (1 << 24) - 1;

    private static final Map<String, KeyDefinition> TABLE = new TreeMap<>();

    private static void def(String name, KeyType type, long min, long max, String dflt, boolean lo, boolean irrDisc) {
        TABLE.put(name, new KeyDefinition(name, type, min, max, dflt, lo, irrDisc, false, false));
    }

    static {
        // RFC 7143 §13.1
        def(TextKey.HEADER_DIGEST, KeyType.LIST, 0, 0, TextKey.NONE, false, false);
        def(TextKey.DATA_DIGEST, KeyType.LIST, 0, 0, TextKey.NONE, false, false);
        def(TextKey.MAX_CONNECTIONS, KeyType.NUMERIC_MIN, 1, 65535, "1", true, true); // §13.2
        def(TextKey.SEND_TARGETS, KeyType.DECLARATIVE, 0, 0, "", false, false); // §13.3, FFPO
        def(TextKey.TARGET_NAME, KeyType.DECLARATIVE, 0, 0, "", false, false); // §13.4
        def(TextKey.INITIATOR_NAME, KeyType.DECLARATIVE, 0, 0, "", false, false); // §13.5
        def(TextKey.INITIATOR_ALIAS, KeyType.DECLARATIVE, 0, 0, "", false, false); // §13.7
        def(TextKey.INITIAL_R2T, KeyType.BOOLEAN_OR, 0, 0, TextKey.YES, true, true); // §13.10
        def(TextKey.IMMEDIATE_DATA, KeyType.BOOLEAN_AND, 0, 0, TextKey.YES, true, true); // §13.11
        def(TextKey.MAX_RECV_DATA_SEGMENT_LENGTH, KeyType.DECLARATIVE, 512, MAX_24, "8192", false, false); // §13.12
        def(TextKey.MAX_BURST_LENGTH, KeyType.NUMERIC_MIN, 512, MAX_24, "262144", true, true); // §13.13
        def(TextKey.FIRST_BURST_LENGTH, KeyType.NUMERIC_MIN, 512, MAX_24, "65536", true, true); // §13.14
        def(TextKey.DEFAULT_TIME2WAIT, KeyType.NUMERIC_MAX, 0, 3600, "2", true, false); // §13.15
        def(TextKey.DEFAULT_TIME2RETAIN, KeyType.NUMERIC_MIN, 0, 3600, "20", true, false); // §13.16
        def(TextKey.MAX_OUTSTANDING_R2T, KeyType.NUMERIC_MIN, 1, 65535, "1", true, true); // §13.17
        def(TextKey.DATA_PDU_IN_ORDER, KeyType.BOOLEAN_OR, 0, 0, TextKey.YES, true, true); // §13.18
        def(TextKey.DATA_SEQUENCE_IN_ORDER, KeyType.BOOLEAN_OR, 0, 0, TextKey.YES, true, true); // §13.19
        def(TextKey.ERROR_RECOVERY_LEVEL, KeyType.NUMERIC_MIN, 0, 2, "0", true, false); // §13.20
        def(TextKey.SESSION_TYPE, KeyType.DECLARATIVE, 0, 0, TextKey.NORMAL, true, false); // §13.21
        def(TextKey.TASK_REPORTING, KeyType.LIST, 0, 0, "RFC3720", true, true); // §13.23
        def(TextKey.ISCSI_PROTOCOL_LEVEL, KeyType.NUMERIC_MIN, 0, 31, "0", true, false); // RFC 7144 §2.1
        for (String target : new String[] {
                TextKey.TARGET_ALIAS, TextKey.TARGET_ADDRESS, TextKey.TARGET_PORTAL_GROUP_TAG}) { // §13.6, 13.8, 13.9
            TABLE.put(target, new KeyDefinition(target, KeyType.DECLARATIVE, 0, 0, "", false, false, false, true));
        }
        for (String chap : new String[] {
                TextKey.CHAP_A, TextKey.CHAP_I, TextKey.CHAP_C, TextKey.CHAP_N, TextKey.CHAP_R}) { // §12.1.3
            TABLE.put(chap, new KeyDefinition(chap, KeyType.DECLARATIVE, 0, 0, "", false, false, true, false));
        }
        TABLE.put(TextKey.AUTH_METHOD, new KeyDefinition(TextKey.AUTH_METHOD, KeyType.LIST, 0, 0, TextKey.NONE, false,
                false, true, false));
    }

    /** The definition of a key, or null when it is not one we understand. */
    public static KeyDefinition of(String name) {
        return TABLE.get(name);
    }

    /** All definitions, sorted by name (for tests and documentation). */
    public static Iterable<KeyDefinition> all() {
        return TABLE.values();
    }
}
