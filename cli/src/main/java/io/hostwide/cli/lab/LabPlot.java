package io.hostwide.cli.lab;

import io.hostwide.cli.util.Charts;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code lab NAME --plot}: our table as small multiples, one bar panel per measured column (KIOPS, CPU us/IO, ...)
 * over the cells, so each metric keeps its own scale. Key columns (the cell's knobs: queues, scheduler, depth) name
 * the bars; measured columns are the medians, which the report holds as doubles. The seed's figures are quoted
 * text from another machine and stay in the text report.
 */
final class LabPlot {
    static final int WIDTH = 900;
    static final int PANEL_HEIGHT = 300;

    private LabPlot() {
    }

    /** Whether the bar labels, side by side, would run into each other (about 9 px a character, XChart's bold font). */
    private static boolean labelsCrowd(List<String> labels) {
        int widest = labels.stream().mapToInt(String::length).max().orElse(0);
        return widest * 9 > (WIDTH - 100) / labels.size();
    }

    static void write(Path file, LabReport report) throws IOException {
        LabReport.Table t = report.ours;
        if (t.rows().isEmpty()) {
            throw new IllegalArgumentException("--plot: no cell was measured: nothing to plot");
        }
        List<Integer> keys = new ArrayList<>();
        List<Integer> metrics = new ArrayList<>();
        for (int c = 0; c < t.columns().size(); c++) {
            final int col = c;
            boolean measured = t.rows().stream().allMatch(r -> r.get(col) instanceof Double);
            (measured ? metrics : keys).add(c);
        }
        List<String> labels = new ArrayList<>();
        for (List<Object> r : t.rows()) {
            StringBuilder sb = new StringBuilder();
            for (int k : keys) { // "none", but "hw_queues=16": a bare number does not say what it counts
                Object v = r.get(k);
                sb.append(sb.isEmpty() ? "" : " ").append(v instanceof String ? v : t.columns().get(k) + "=" + v);
            }
            labels.add(sb.toString());
        }
        List<CategoryChart> panels = new ArrayList<>();
        for (int i = 0; i < metrics.size(); i++) {
            int m = metrics.get(i);
            String title = (i == 0 ? "lab " + report.name + " (median of " + report.repeat + ", shape shown: "
                    + report.verdictWord() + ") - " : "") + t.columns().get(m);
            CategoryChart c = new CategoryChartBuilder().width(WIDTH).height(PANEL_HEIGHT).title(title)
                    .yAxisTitle(t.columns().get(m)).build();
            c.getStyler().setXAxisLabelRotation(labelsCrowd(labels) ? 20 : 0);
            c.getStyler().setLegendVisible(false);
            c.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
            c.getStyler().setPlotGridVerticalLinesVisible(false);
            List<Double> ys = new ArrayList<>();
            for (List<Object> r : t.rows()) {
                Double v = (Double) r.get(m);
                ys.add(v.isNaN() ? 0.0 : v);
            }
            c.addSeries(t.columns().get(m), labels, ys);
            panels.add(c);
        }
        if (panels.isEmpty()) {
            throw new IllegalArgumentException("--plot: experiment " + report.name + " has no measured column");
        }
        Charts.write(file, panels);
    }
}
