package io.hostwide.management.lio;

import java.util.List;
import java.util.Map;

/**
 * JSON laid out as Python's {@code json.dump(obj, f, sort_keys=True, indent=2)} lays it out, which is how rtslib
 * writes saveconfig.json: two-space indent, {@code ": "} and {@code ","} separators, {@code []} and {@code {}} for
 * empty containers, non-ASCII escaped. A file we write then diffs cleanly against one targetcli wrote. Maps must
 * already be sorted (the export builds TreeMaps).
 */
final class PythonJson {

    private PythonJson() {
    }

    static void write(StringBuilder sb, Object v, int indent) {
        if (v instanceof Map<?, ?> m) {
            if (m.isEmpty()) {
                sb.append("{}");
                return;
            }
            sb.append("{\n");
            int i = 0;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                pad(sb, indent + 2);
                string(sb, e.getKey().toString());
                sb.append(": ");
                write(sb, e.getValue(), indent + 2);
                sb.append(++i < m.size() ? ",\n" : "\n");
            }
            pad(sb, indent);
            sb.append('}');
        } else if (v instanceof List<?> l) {
            if (l.isEmpty()) {
                sb.append("[]");
                return;
            }
            sb.append("[\n");
            for (int i = 0; i < l.size(); i++) {
                pad(sb, indent + 2);
                write(sb, l.get(i), indent + 2);
                sb.append(i + 1 < l.size() ? ",\n" : "\n");
            }
            pad(sb, indent);
            sb.append(']');
        } else if (v instanceof String s) {
            string(sb, s);
        } else if (v == null) {
            sb.append("null");
        } else { // Integer, Long, Boolean
            sb.append(v);
        }
    }

    private static void pad(StringBuilder sb, int n) {
        sb.append(" ".repeat(n));
    }

    /** Python's ensure_ascii escaping. */
    private static void string(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case '\b' -> sb.append("\\b");
                case '\f' -> sb.append("\\f");
                default -> {
                    if (c < 0x20 || c > 0x7e) { // Python escapes all but space..tilde
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }
}
