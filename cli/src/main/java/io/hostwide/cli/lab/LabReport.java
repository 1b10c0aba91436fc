package io.hostwide.cli.lab;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What one experiment prints: a table of OUR measurements, the seed's own figures as a separate table (quoted
 * from the thread, for shape only), the shape to expect, and whether our numbers show it.
 */
final class LabReport {

    /** A table with a header row; cells are numbers or strings. */
    record Table(List<String> columns, List<List<Object>> rows) {
        Table {
            columns = List.copyOf(columns);
            rows = new ArrayList<>(rows);
        }

        Table add(Object... row) {
            if (row.length != columns.size()) {
                throw new IllegalArgumentException("row has " + row.length + " cells, table has " + columns.size());
            }
            rows.add(List.of(row));
            return this;
        }

        List<Map<String, Object>> toTree() {
            List<Map<String, Object>> out = new ArrayList<>();
            for (List<Object> r : rows) {
                Map<String, Object> m = new LinkedHashMap<>();
                for (int i = 0; i < columns.size(); i++) {
                    m.put(columns.get(i), r.get(i));
                }
                out.add(m);
            }
            return out;
        }
    }

    final String name;
    final String setup;
    final Table ours;
    final String seedSource;
    final Table seed;
    String expectation = "";
    Boolean shown;       // null: not decided (interrupted or incomplete)
    String verdictDetail = "";
    boolean interrupted;

    LabReport(String name, String setup, Table ours, String seedSource, Table seed) {
        this.name = name;
        this.setup = setup;
        this.ours = ours;
        this.seedSource = seedSource;
        this.seed = seed;
    }

    static Table table(String... columns) {
        return new Table(List.of(columns), List.of());
    }

    void verdict(String expectation, Boolean shown, String detail) {
        this.expectation = expectation;
        this.shown = shown;
        this.verdictDetail = detail;
    }

    String verdictWord() {
        return interrupted ? "interrupted" : shown == null ? "undecided" : shown ? "yes" : "no";
    }

    Map<String, Object> toTree() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("experiment", name);
        m.put("setup", setup);
        m.put("ours", ours.toTree());
        m.put("seed_source", seedSource);
        m.put("seed", seed.toTree());
        m.put("expected_shape", expectation);
        m.put("shape_shown", interrupted ? null : shown);
        m.put("verdict", verdictDetail);
        m.put("interrupted", interrupted);
        return m;
    }

    String toText() {
        StringBuilder sb = new StringBuilder();
        sb.append("lab ").append(name).append(interrupted ? " (interrupted)" : "").append('\n');
        sb.append("setup: ").append(setup).append("\n\n");
        sb.append("OUR MEASUREMENTS (this implementation, emulated devices):\n");
        appendTable(sb, ours);
        sb.append("\nSEED'S FIGURES (").append(seedSource).append("; their hardware, quoted for shape only):\n");
        appendTable(sb, seed);
        sb.append("\nexpected shape: ").append(expectation).append('\n');
        sb.append("shown by ours: ").append(verdictWord());
        if (!verdictDetail.isEmpty()) {
            sb.append(" (").append(verdictDetail).append(')');
        }
        return sb.append('\n').toString();
    }

    private static void appendTable(StringBuilder sb, Table t) {
        int[] width = new int[t.columns().size()];
        List<List<String>> cells = new ArrayList<>();
        cells.add(t.columns());
        for (List<Object> r : t.rows()) {
            List<String> s = new ArrayList<>();
            for (Object o : r) {
                s.add(format(o));
            }
            cells.add(s);
        }
        for (List<String> r : cells) {
            for (int i = 0; i < width.length; i++) {
                width[i] = Math.max(width[i], r.get(i).length());
            }
        }
        for (List<String> r : cells) {
            sb.append(' ');
            for (int i = 0; i < width.length; i++) {
                sb.append(' ').append(String.format(Locale.ROOT, "%" + width[i] + "s", r.get(i)));
            }
            sb.append('\n');
        }
    }

    private static String format(Object o) {
        if (o instanceof Double d) {
            return d >= 100 ? String.format(Locale.ROOT, "%.0f", d) : String.format(Locale.ROOT, "%.2f", d);
        }
        return String.valueOf(o);
    }
}
