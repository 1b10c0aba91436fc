package io.hostwide.management.metrics;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A writer of Prometheus' text exposition format 0.0.4: every family once, with its {@code # HELP} and
 * {@code # TYPE} lines, its samples together (the format requires a family's samples to be contiguous, so samples
 * may be added in any order and are grouped here), label values and help texts escaped as the format says
 * (backslash, double quote and line feed in label values; backslash and line feed in help). Not thread-safe: one
 * per scrape.
 */
final class Exposition {
    /** Prometheus' metric types as the TYPE line spells them. */
    enum Type { COUNTER, GAUGE, HISTOGRAM;

        String text() { return name().toLowerCase(java.util.Locale.ROOT); }
    }

    private final Map<String, Family> families = new LinkedHashMap<>();

    /** The family {@code name}, created on first use (a second call with another type is a programming error). */
    Family family(String name, Type type, String help) {
        Family f = families.computeIfAbsent(name, n -> new Family(n, type, help));
        if (f.type != type) {
            throw new IllegalStateException(name + " is a " + f.type + ", not a " + type);
        }
        return f;
    }

    String render() {
        StringBuilder sb = new StringBuilder(4096);
        for (Family f : families.values()) {
            sb.append("# HELP ").append(f.name).append(' ');
            escapeHelp(sb, f.help);
            sb.append("\n# TYPE ").append(f.name).append(' ').append(f.type.text()).append('\n');
            sb.append(f.samples);
        }
        return sb.toString();
    }

    /** One metric family and its sample lines. */
    static final class Family {
        final String name;
        final Type type;
        final String help;
        final StringBuilder samples = new StringBuilder();

        Family(String name, Type type, String help) {
            this.name = name;
            this.type = type;
            this.help = help;
        }

        /** A sample of this family's own name; {@code labels} alternate name, value. */
        Family sample(double value, String... labels) {
            return line(name, value, labels);
        }

        /**
         * A histogram: {@code _bucket} lines for each bound (seconds, ascending; {@code +Inf} added), {@code _sum}
         * and {@code _count}. {@code cumulative[i]} is the count at or below {@code bounds[i]}.
         */
        Family histogram(double[] bounds, long[] cumulative, long count, double sum, String... labels) {
            String[] withLe = java.util.Arrays.copyOf(labels, labels.length + 2);
            withLe[labels.length] = "le";
            for (int i = 0; i < bounds.length; i++) {
                withLe[labels.length + 1] = number(bounds[i]);
                line(name + "_bucket", cumulative[i], withLe);
            }
            withLe[labels.length + 1] = "+Inf";
            line(name + "_bucket", count, withLe);
            line(name + "_sum", sum, labels);
            line(name + "_count", count, labels);
            return this;
        }

        private Family line(String metric, double value, String... labels) {
            samples.append(metric);
            if (labels.length > 0) {
                samples.append('{');
                for (int i = 0; i < labels.length; i += 2) {
                    if (i > 0) {
                        samples.append(',');
                    }
                    samples.append(labels[i]).append("=\"");
                    escapeLabel(samples, labels[i + 1]);
                    samples.append('"');
                }
                samples.append('}');
            }
            samples.append(' ').append(number(value)).append('\n');
            return this;
        }
    }

    /** Integers without a fraction (counters read naturally), others as Java prints doubles, which Go parses. */
    static String number(double v) {
        if (Double.isNaN(v)) {
            return "NaN";
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "+Inf" : "-Inf";
        }
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return Long.toString((long) v);
        }
        return Double.toString(v);
    }

    static void escapeLabel(StringBuilder sb, String v) {
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            switch (c) {
                case '\\' -> sb.append("\\\\");
                case '"' -> sb.append("\\\"");
                case '\n' -> sb.append("\\n");
                default -> sb.append(c);
            }
        }
    }

    static void escapeHelp(StringBuilder sb, String v) {
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            switch (c) {
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                default -> sb.append(c);
            }
        }
    }
}
