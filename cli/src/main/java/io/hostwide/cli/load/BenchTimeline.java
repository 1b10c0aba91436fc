package io.hostwide.cli.load;

import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A run second by second: IOPS, bandwidth and latency percentiles of each second (and of the last, partial one),
 * for {@code bench --plot} and its JSON. The percentiles come from that second's completions only (interval
 * histograms), so a stall shows in the second it happened rather than averaged into the whole run.
 */
public final class BenchTimeline {

    /**
     * One interval, ending {@code at} seconds after the start (whole seconds, and the run's last, shorter interval);
     * rates per second; latencies in nanoseconds, 0 where the direction had no completion in the interval.
     */
    public record Sample(double at, long readIos, long writeIos, double readIops, double readBytesPerSecond,
                         double writeIops,
                         double writeBytesPerSecond, long readP50, long readP99, long readP999,
                         long writeP50, long writeP99, long writeP999) {
    }

    private final List<Sample> samples = new ArrayList<>();
    private Histogram readRecycle;
    private Histogram writeRecycle;
    private final Histogram read = new Histogram(3_600_000_000_000L, 2);
    private final Histogram write = new Histogram(3_600_000_000_000L, 2);

    /** Called by the runner's thread once a second, and once at the end. */
    void sample(double at, long readIos, long writeIos, double readIops, double readBps, double writeIops,
                double writeBps, List<BenchJob> jobs) {
        read.reset();
        write.reset();
        for (BenchJob j : jobs) {
            readRecycle = j.readInterval.getIntervalHistogram(readRecycle);
            read.add(readRecycle);
            writeRecycle = j.writeInterval.getIntervalHistogram(writeRecycle);
            write.add(writeRecycle);
        }
        samples.add(new Sample(at, readIos, writeIos, readIops, readBps, writeIops, writeBps,
                p(read, 50), p(read, 99), p(read, 99.9), p(write, 50), p(write, 99), p(write, 99.9)));
    }

    /** For tests and callers that build a timeline from other sources. */
    public void add(Sample s) {
        samples.add(s);
    }

    private static long p(Histogram h, double percentile) {
        return h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(percentile);
    }

    public List<Sample> samples() {
        return List.copyOf(samples);
    }

    public boolean hasReads() {
        return samples.stream().anyMatch(s -> s.readIops() > 0);
    }

    public boolean hasWrites() {
        return samples.stream().anyMatch(s -> s.writeIops() > 0);
    }

    public List<Map<String, Object>> toTree() {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Sample s : samples) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("at_s", Math.round(s.at() * 1000) / 1000.0);
            m.put("read_ios", s.readIos());
            m.put("read_iops", Math.round(s.readIops()));
            m.put("read_bw_bytes", Math.round(s.readBytesPerSecond()));
            m.put("read_lat_ns", percentiles(s.readP50(), s.readP99(), s.readP999()));
            m.put("write_ios", s.writeIos());
            m.put("write_iops", Math.round(s.writeIops()));
            m.put("write_bw_bytes", Math.round(s.writeBytesPerSecond()));
            m.put("write_lat_ns", percentiles(s.writeP50(), s.writeP99(), s.writeP999()));
            out.add(m);
        }
        return out;
    }

    private static Map<String, Object> percentiles(long p50, long p99, long p999) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("p50", p50);
        m.put("p99", p99);
        m.put("p99_9", p999);
        return m;
    }
}
