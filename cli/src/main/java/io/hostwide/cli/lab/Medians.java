package io.hostwide.cli.lab;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The table a verdict reads: for each cell (named by its experiment) and each metric, the median of the runs and
 * their spread. Built by {@link Repeats} from measurements, or written out by hand in the tests.
 */
record Medians(Map<String, Map<String, Stat>> cells) {

    /**
     * @param median the median of the runs
     * @param spread (largest - smallest) / |median| over the runs: 0 for one run, or when every run agreed
     */
    record Stat(double median, double spread) {

        static Stat exact(double value) {
            return new Stat(value, 0);
        }

        /** a/b of two medians; its spread is at most the sum of theirs (to first order). */
        static Stat ratio(Stat a, Stat b) {
            return new Stat(b.median == 0 ? Double.NaN : a.median / b.median, a.spread + b.spread);
        }
    }

    Medians {
        Map<String, Map<String, Stat>> copy = new LinkedHashMap<>();
        cells.forEach((c, m) -> copy.put(c, Map.copyOf(m)));
        cells = java.util.Collections.unmodifiableMap(copy);
    }

    /** True when every named cell was measured (a run stopped early leaves some out). */
    boolean has(List<String> cellNames) {
        return cells.keySet().containsAll(cellNames);
    }

    Stat get(String cell, String metric) {
        Map<String, Stat> m = cells.get(cell);
        if (m == null || !m.containsKey(metric)) {
            throw new IllegalArgumentException("no " + metric + " for cell " + cell);
        }
        return m.get(metric);
    }

    double median(String cell, String metric) {
        return get(cell, metric).median();
    }

    /** Builds a table by hand: {@code cell(name, metric, median, metric, median, ...)} with no spread. */
    static final class Builder {
        private final Map<String, Map<String, Stat>> cells = new LinkedHashMap<>();

        Builder cell(String name, Object... metricThenMedian) {
            Map<String, Stat> m = new LinkedHashMap<>();
            for (int i = 0; i < metricThenMedian.length; i += 2) {
                m.put((String) metricThenMedian[i], Stat.exact(((Number) metricThenMedian[i + 1]).doubleValue()));
            }
            cells.put(name, m);
            return this;
        }

        Medians build() {
            return new Medians(cells);
        }
    }

    static Builder builder() {
        return new Builder();
    }

    /** Repeated measurements of the cells, in the order first measured; {@link #medians()} sums them up. */
    static final class Repeats {
        private final Map<String, Map<String, List<Double>>> runs = new LinkedHashMap<>();

        void add(String cell, Map<String, ? extends Number> metrics) {
            Map<String, List<Double>> m = runs.computeIfAbsent(cell, c -> new LinkedHashMap<>());
            metrics.forEach((k, v) -> m.computeIfAbsent(k, x -> new ArrayList<>()).add(v.doubleValue()));
        }

        /** How many times {@code cell} was measured. */
        int count(String cell) {
            Map<String, List<Double>> m = runs.get(cell);
            return m == null || m.isEmpty() ? 0 : m.values().iterator().next().size();
        }

        Medians medians() {
            Map<String, Map<String, Stat>> cells = new LinkedHashMap<>();
            runs.forEach((cell, metrics) -> {
                Map<String, Stat> m = new LinkedHashMap<>();
                metrics.forEach((k, values) -> m.put(k, stat(values)));
                cells.put(cell, m);
            });
            return new Medians(cells);
        }

        static Stat stat(List<Double> values) {
            double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
            int n = v.length;
            double median = n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
            double spread = median == 0 ? (v[n - 1] == v[0] ? 0 : Double.POSITIVE_INFINITY)
                    : (v[n - 1] - v[0]) / Math.abs(median);
            return new Stat(median, spread);
        }

        /** The medians of one cell in metric order, for the printed table. */
        List<Object> row(String cell) {
            List<Object> out = new ArrayList<>();
            runs.get(cell).values().forEach(values -> out.add(stat(values).median()));
            return out;
        }
    }
}
