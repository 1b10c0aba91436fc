package io.hostwide.loop;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** {@code k=v,k=v} device parameters; every error names the knob. */
final class Knobs {
    private final String kind;
    private final Map<String, String> values = new LinkedHashMap<>();

    Knobs(String kind, String params, Set<String> known) {
        this.kind = kind;
        if (params == null || params.isBlank()) {
            return;
        }
        for (String part : params.split(",")) {
            String p = part.strip();
            if (p.isEmpty()) {
                continue;
            }
            int eq = p.indexOf('=');
            String k = (eq < 0 ? p : p.substring(0, eq)).strip().toLowerCase(Locale.ROOT);
            String v = eq < 0 ? "1" : p.substring(eq + 1).strip();
            if (!known.contains(k)) {
                // sorted: Set.of iterates in a different order on every run
                throw new IllegalArgumentException(kind + ": unknown knob '" + k + "' (known: "
                        + String.join(", ", new java.util.TreeSet<>(known)) + ")");
            }
            if (values.put(k, v) != null) {
                throw new IllegalArgumentException(kind + ": knob '" + k + "' given twice");
            }
        }
    }

    String kind() {
        return kind;
    }

    boolean has(String k) {
        return values.containsKey(k);
    }

    String string(String k, String def) {
        return values.getOrDefault(k, def);
    }

    long number(String k, long def, long min, long max) {
        String v = values.get(k);
        if (v == null) {
            return def;
        }
        long n;
        try {
            n = v.startsWith("0x") || v.startsWith("0X") ? Long.parseLong(v.substring(2), 16) : Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(kind + ": knob '" + k + "' must be a number, got '" + v + "'");
        }
        if (n < min || n > max) {
            throw new IllegalArgumentException(kind + ": knob '" + k + "' must be " + min + ".." + max + ", got " + n);
        }
        return n;
    }

    int integer(String k, int def, int min, int max) {
        return (int) number(k, def, min, max);
    }

    boolean flag(String k, boolean def) {
        String v = values.get(k);
        if (v == null) {
            return def;
        }
        return switch (v.toLowerCase(Locale.ROOT)) {
            case "1", "true", "on", "yes" -> true;
            case "0", "false", "off", "no" -> false;
            default -> throw new IllegalArgumentException(kind + ": knob '" + k + "' must be 0 or 1, got '" + v + "'");
        };
    }
}
