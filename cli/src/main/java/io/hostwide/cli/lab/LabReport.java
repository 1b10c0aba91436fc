package io.hostwide.cli.lab;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What one experiment prints: a table of OUR measurements (each cell the median of {@code repeat} runs), the
 * seed's own figures as a separate table (quoted from the thread, for shape only), the shape to expect clause by
 * clause, and the {@link Verdict} on each against the stated noise margin.
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
    /** The expected shape's clauses, in the order the verdict checks them. */
    List<String> expectation = List.of();
    /** null: not decided (interrupted, or a cell missing). */
    Verdict verdict;
    double margin;
    int repeat;
    /** Figures beside the verdict that it does not judge (CPU per I/O, the other scheduler). */
    String notes = "";
    boolean interrupted;

    LabReport(String name, String setup, Table ours, String seedSource, Table seed) {
        this.name = name;
        this.setup = setup;
        this.ours = ours;
        this.seedSource = seedSource;
        this.seed = seed;
    }

    /** Adds {@code cell}'s row to our table: its key columns, then the median of each metric in measured order. */
    void addMedianRow(Medians.Repeats reps, String cell, Object... keys) {
        List<Object> row = new ArrayList<>(List.of(keys));
        row.addAll(reps.row(cell));
        ours.add(row.toArray());
    }

    static Table table(String... columns) {
        return new Table(List.of(columns), List.of());
    }

    /** Records the expectation and, unless the run was interrupted, the verdict on it (null: undecided). */
    void verdict(List<String> expectation, double margin, int repeat, Verdict verdict, String notes) {
        this.expectation = List.copyOf(expectation);
        this.margin = margin;
        this.repeat = repeat;
        this.verdict = interrupted ? null : verdict;
        this.notes = notes;
    }

    String verdictWord() {
        return interrupted ? "interrupted" : verdict == null ? "undecided" : verdict.outcome().word();
    }

    Map<String, Object> toTree() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("experiment", name);
        m.put("setup", setup);
        m.put("ours", ours.toTree());
        m.put("seed_source", seedSource);
        m.put("seed", seed.toTree());
        m.put("expected_shape", expectation);
        m.put("repeat", repeat);
        m.put("noise_margin", margin);
        m.put("shape_shown", verdictWord());
        List<Map<String, Object>> clauses = new ArrayList<>();
        if (verdict != null) {
            for (Verdict.Clause c : verdict.clauses()) {
                Map<String, Object> cm = new LinkedHashMap<>();
                cm.put("claim", c.claim());
                cm.put("shown", c.outcome().word());
                cm.put("evidence", c.evidence());
                clauses.add(cm);
            }
        }
        m.put("clauses", clauses);
        m.put("notes", notes);
        m.put("interrupted", interrupted);
        return m;
    }

    String toText() {
        StringBuilder sb = new StringBuilder();
        sb.append("lab ").append(name).append(interrupted ? " (interrupted)" : "").append('\n');
        sb.append("setup: ").append(setup).append("\n\n");
        sb.append("OUR MEASUREMENTS (this implementation, emulated devices; each cell the median of ").append(repeat)
                .append(repeat == 1 ? " run" : " runs").append("):\n");
        appendTable(sb, ours);
        sb.append("\nSEED'S FIGURES (").append(seedSource).append("; their hardware, quoted for shape only):\n");
        appendTable(sb, seed);
        sb.append(String.format(Locale.ROOT, "%nexpected shape (noise margin +-%.0f%%: a ratio within it is noise):%n",
                100 * margin));
        for (int i = 0; i < expectation.size(); i++) {
            sb.append("  ").append(i + 1).append(". ").append(expectation.get(i));
            if (verdict != null) {
                Verdict.Clause c = verdict.clauses().get(i);
                sb.append(": ").append(c.outcome().word()).append(" (").append(c.evidence()).append(')');
            }
            sb.append('\n');
        }
        sb.append("shown by ours: ").append(verdictWord());
        if (verdict != null && verdict.outcome() != Verdict.Outcome.YES) {
            sb.append(" (every clause must be yes)");
        }
        sb.append('\n');
        if (!notes.isEmpty()) {
            sb.append("also measured: ").append(notes).append('\n');
        }
        return sb.toString();
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
