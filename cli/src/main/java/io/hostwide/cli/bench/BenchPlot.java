package io.hostwide.cli.bench;

import io.hostwide.cli.load.BenchResult;
import io.hostwide.cli.load.BenchTimeline;
import io.hostwide.cli.util.Charts;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * {@code bench --plot}: the run second by second in two panels, IOPS on top and latency percentiles (p50, p99,
 * p99.9, log scale: a tail is orders of magnitude above the median) below, reads and writes as separate series.
 */
final class BenchPlot {
    static final int WIDTH = 900;
    static final int PANEL_HEIGHT = 360;

    private BenchPlot() {
    }

    static void write(Path file, BenchResult result, BenchTimeline timeline) throws IOException {
        List<BenchTimeline.Sample> s = timeline.samples();
        if (s.isEmpty()) {
            throw new IllegalArgumentException("--plot: the run measured nothing: nothing to plot");
        }
        String device = result.device();
        int paren = device.indexOf(" (");
        String title = (paren > 0 ? device.substring(0, paren) : device) + ": " + result.spec().rw().fioName()
                + " bs=" + result.spec().blockSize()
                + " iodepth=" + result.spec().iodepth() + " numjobs=" + result.spec().numjobs();
        XYChart iops = chart(title, "IOPS");
        iops.getStyler().setYAxisMin(0.0); // a dip must look as deep as it is
        iops.getStyler().setYAxisDecimalPattern("#,###");
        XYChart lat = chart("latency per second", "microseconds (log)");
        lat.getStyler().setYAxisLogarithmic(true);
        lat.getStyler().setYAxisDecimalPattern("#,##0.#");
        if (timeline.hasReads() || !timeline.hasWrites()) {
            add(iops, "read IOPS", s, BenchTimeline.Sample::readIops);
            addLatency(lat, "read", s, BenchTimeline.Sample::readP50, BenchTimeline.Sample::readP99,
                    BenchTimeline.Sample::readP999);
        }
        if (timeline.hasWrites()) {
            add(iops, "write IOPS", s, BenchTimeline.Sample::writeIops);
            addLatency(lat, "write", s, BenchTimeline.Sample::writeP50, BenchTimeline.Sample::writeP99,
                    BenchTimeline.Sample::writeP999);
        }
        Charts.write(file, List.of(iops, lat));
    }

    private static XYChart chart(String title, String yTitle) {
        XYChart c = new XYChartBuilder().width(WIDTH).height(PANEL_HEIGHT).title(title)
                .xAxisTitle("second").yAxisTitle(yTitle).build();
        c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS).setLegendLayout(Styler.LegendLayout.Horizontal);
        c.getStyler().setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
        return c;
    }

    private static void add(XYChart c, String name, List<BenchTimeline.Sample> s,
                            ToDoubleFunction<BenchTimeline.Sample> y) {
        List<Double> xs = new ArrayList<>();
        List<Double> ys = new ArrayList<>();
        for (BenchTimeline.Sample x : s) {
            xs.add(x.at());
            ys.add(y.applyAsDouble(x));
        }
        c.addSeries(name, xs, ys).setMarker(SeriesMarkers.NONE);
    }

    @SafeVarargs
    private static void addLatency(XYChart c, String dir, List<BenchTimeline.Sample> s,
                                   java.util.function.ToLongFunction<BenchTimeline.Sample>... p) {
        String[] names = {"p50", "p99", "p99.9"};
        for (int i = 0; i < p.length; i++) {
            var f = p[i];
            List<Double> xs = new ArrayList<>();
            List<Double> ys = new ArrayList<>();
            for (BenchTimeline.Sample x : s) {
                long ns = f.applyAsLong(x);
                if (ns > 0) { // a second without completions has no latency; log axes cannot show 0
                    xs.add(x.at());
                    ys.add(ns / 1e3);
                }
            }
            if (!xs.isEmpty()) {
                c.addSeries(dir + " " + names[i], xs, ys).setMarker(SeriesMarkers.NONE);
            }
        }
    }
}
