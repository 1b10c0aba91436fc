package io.hostwide.management.util;

import java.util.Locale;

/** Parses sizes ("4k", "1m", "512", "1GiB") and durations ("10", "10s", "500ms", "2m") the way fio users write them. */
public final class Sizes {

    private Sizes() {
    }

    /**
     * Bytes from a size with an optional binary suffix (k, m, g, t, optionally followed
     * by "b", "ib" or "ib"); a bare number is bytes.
     *
     * @throws IllegalArgumentException naming {@code what} when the text is not a size
     */
    public static long parseBytes(String what, String text) {
        String s = text.trim().toLowerCase(Locale.ROOT);
        int i = 0;
        while (i < s.length() && Character.isDigit(s.charAt(i))) {
            i++;
        }
        if (i == 0) {
            throw new IllegalArgumentException(what + ": '" + text + "' is not a size (e.g. 4096, 4k, 1m, 1g)");
        }
        String unit = s.substring(i);
        long shift = switch (unit) {
            case "", "b" -> 0;
            case "k", "kb", "kib" -> 10;
            case "m", "mb", "mib" -> 20;
            case "g", "gb", "gib" -> 30;
            case "t", "tb", "tib" -> 40;
            default -> throw new IllegalArgumentException(what + ": unknown unit '" + unit + "' in '" + text
                    + "' (use k, m, g or t)");
        };
        long n;
        try {
            n = Long.parseLong(s.substring(0, i));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + ": '" + text + "' is too large");
        }
        if (n > (Long.MAX_VALUE >> shift)) {
            throw new IllegalArgumentException(what + ": '" + text + "' is too large");
        }
        return n << shift;
    }

    /** Nanoseconds from a duration; a bare number is seconds. */
    public static long parseNanos(String what, String text) {
        String s = text.trim().toLowerCase(Locale.ROOT);
        int i = 0;
        while (i < s.length() && (Character.isDigit(s.charAt(i)) || s.charAt(i) == '.')) {
            i++;
        }
        if (i == 0) {
            throw new IllegalArgumentException(what + ": '" + text + "' is not a duration (e.g. 10, 10s, 500ms, 2m)");
        }
        double n;
        try {
            n = Double.parseDouble(s.substring(0, i));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + ": '" + text + "' is not a duration (e.g. 10, 10s, 500ms, 2m)");
        }
        double unit = switch (s.substring(i)) {
            case "", "s", "sec" -> 1e9;
            case "ms" -> 1e6;
            case "us" -> 1e3;
            case "ns" -> 1;
            case "m", "min" -> 60e9;
            case "h" -> 3600e9;
            default -> throw new IllegalArgumentException(what + ": unknown unit in '" + text + "' (use ms, s, m or h)");
        };
        double nanos = n * unit;
        if (nanos > Long.MAX_VALUE) {
            throw new IllegalArgumentException(what + ": '" + text + "' is too long");
        }
        return (long) nanos;
    }

    /** "4.00 KiB" style, for humans. */
    public static String formatBytes(double bytes) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
        int u = 0;
        while (bytes >= 1024 && u < units.length - 1) {
            bytes /= 1024;
            u++;
        }
        return u == 0 ? String.format(Locale.ROOT, "%.0f %s", bytes, units[u])
                : String.format(Locale.ROOT, "%.2f %s", bytes, units[u]);
    }

    /** "5.12M" style counts. */
    public static String formatCount(double n) {
        if (n >= 1e9) {
            return String.format(Locale.ROOT, "%.2fG", n / 1e9);
        }
        if (n >= 1e6) {
            return String.format(Locale.ROOT, "%.2fM", n / 1e6);
        }
        if (n >= 1e4) {
            return String.format(Locale.ROOT, "%.1fk", n / 1e3);
        }
        return String.format(Locale.ROOT, "%.0f", n);
    }
}
