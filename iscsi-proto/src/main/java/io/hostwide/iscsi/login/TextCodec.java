package io.hostwide.iscsi.login;

import io.hostwide.iscsi.spec.TextKey;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The text format of Login and Text PDUs, RFC 7143 §6.1: UTF-8 {@code key=value} pairs, each followed by one NUL.
 * Parsing never throws: a malformed segment yields a {@link Parsed} with an error description.
 */
public final class TextCodec {
    private TextCodec() {}

    /** The result of parsing: the pairs in order, or {@code error} (non-null) and no pairs. */
    public record Parsed(List<KeyValue> pairs, String error) {
        public boolean ok() {
            return error == null;
        }
    }

    /** Parses a complete (continuation-joined) text segment. */
    public static Parsed parse(ByteBuffer segment) {
        List<KeyValue> out = new ArrayList<>();
        ByteBuffer b = segment.duplicate();
        int start = b.position();
        int end = b.limit();
        int i = start;
        while (i < end) {
            int nul = i;
            while (nul < end && b.get(nul) != 0) {
                nul++;
            }
            if (nul > i) { // tolerate empty strings between NULs (padding some initiators leave)
                String error = pair(b, i, nul, out);
                if (error != null) {
                    return new Parsed(List.of(), error);
                }
            }
            i = nul + 1;
        }
        return new Parsed(out, null);
    }

    private static String pair(ByteBuffer b, int from, int to, List<KeyValue> out) {
        int eq = from;
        while (eq < to && b.get(eq) != '=') {
            eq++;
        }
        if (eq == to) {
            return "text without '='";
        }
        int keyLen = eq - from;
        if (keyLen == 0 || keyLen > TextKey.MAX_KEY_LENGTH) {
            return "key name length " + keyLen + " outside 1.." + TextKey.MAX_KEY_LENGTH;
        }
        for (int k = from; k < eq; k++) {
            if (!keyChar(b.get(k))) {
                return "invalid character in a key name";
            }
        }
        if (to - eq - 1 > TextKey.MAX_VALUE_LENGTH) {
            return "value longer than " + TextKey.MAX_VALUE_LENGTH + " bytes";
        }
        String key = new String(bytes(b, from, eq), StandardCharsets.US_ASCII);
        String value = utf8(b, eq + 1, to);
        if (value == null) {
            return "value of " + key + " is not UTF-8";
        }
        out.add(new KeyValue(key, value));
        return null;
    }

    // RFC 7143 §6.1: key names are letters, digits, '.', '-', '+', '@', '_' (and the '#' of X# keys).
    private static boolean keyChar(byte c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-'
                || c == '+' || c == '@' || c == '_' || c == '#';
    }

    private static byte[] bytes(ByteBuffer b, int from, int to) {
        byte[] a = new byte[to - from];
        b.get(from, a);
        return a;
    }

    private static String utf8(ByteBuffer b, int from, int to) {
        CharsetDecoder d = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        try {
            return d.decode(ByteBuffer.wrap(bytes(b, from, to))).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    /** Encodes pairs as {@code key=value\0...}. */
    public static byte[] encode(List<KeyValue> pairs) {
        StringBuilder sb = new StringBuilder();
        for (KeyValue kv : pairs) {
            sb.append(kv.key()).append('=').append(kv.value()).append('\0');
        }
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }
}
