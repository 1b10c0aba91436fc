package io.hostwide.cli.load;

import io.hostwide.management.util.Sizes;
import org.HdrHistogram.Histogram;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** The outcome of one benchmark, as text or as a JSON-ready tree. */
public record BenchResult(String device, BenchSpec spec, long elapsedNanos, Direction read, Direction write,
                          long errors, boolean interrupted, long cpuNanos, long rampIos) {

    /** A result without a ramp ({@code rampIos}: the I/Os that completed in the ramp and count nowhere else). */
    public BenchResult(String device, BenchSpec spec, long elapsedNanos, Direction read, Direction write, long errors,
                       boolean interrupted, long cpuNanos) {
        this(device, spec, elapsedNanos, read, write, errors, interrupted, cpuNanos, 0);
    }

    /**
     * {@code cpuNanos}: CPU time (user + system) of the whole process while the jobs ran, -1 where the JVM cannot say.
     * It covers every thread the I/O costs (job threads, the driver's readers, GC), not the start-up before the run
     * nor the ramp ({@link BenchSpec#rampNanos()}).
     */
    public BenchResult(String device, BenchSpec spec, long elapsedNanos, Direction read, Direction write, long errors,
                       boolean interrupted) {
        this(device, spec, elapsedNanos, read, write, errors, interrupted, -1);
    }

    /** CPU nanoseconds per I/O (both directions) during the run, or -1 when unknown or no I/O finished. */
    public double cpuNanosPerIo() {
        long ios = read.ios + write.ios;
        return cpuNanos < 0 || ios == 0 ? -1 : (double) cpuNanos / ios;
    }

    /** Totals and latency percentiles (nanoseconds) for one direction. */
    public record Direction(long ios, long bytes, double iops, double bytesPerSecond,
                            long p50, long p99, long p999, long max, double mean) {

        static Direction of(Histogram h, long bytes, long elapsedNanos) {
            long n = h.getTotalCount();
            double secs = elapsedNanos / 1e9;
            if (n == 0) {
                return new Direction(0, 0, 0, 0, 0, 0, 0, 0, 0);
            }
            return new Direction(n, bytes, n / secs, bytes / secs,
                    h.getValueAtPercentile(50), h.getValueAtPercentile(99), h.getValueAtPercentile(99.9),
                    h.getMaxValue(), h.getMean());
        }

        Map<String, Object> toTree() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("ios", ios);
            m.put("bytes", bytes);
            m.put("iops", Math.round(iops));
            m.put("bw_bytes", Math.round(bytesPerSecond));
            Map<String, Object> lat = new LinkedHashMap<>();
            lat.put("p50", p50);
            lat.put("p99", p99);
            lat.put("p99_9", p999);
            lat.put("max", max);
            lat.put("mean", Math.round(mean));
            m.put("lat_ns", lat);
            return m;
        }
    }

    public Map<String, Object> toTree() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("device", device);
        m.put("rw", spec.rw().fioName());
        if (spec.rw().mixed) {
            m.put("rwmixread", spec.readPercent());
        }
        m.put("bs", spec.blockSize());
        m.put("iodepth", spec.iodepth());
        m.put("numjobs", spec.numjobs());
        m.put("poll", spec.poll());
        m.put("ramp_ns", spec.rampNanos());   // run before elapsed_ns began, in none of the figures here
        m.put("ramp_ios", rampIos);           // what completed in it (a whole-process CPU figure needs them)
        m.put("elapsed_ns", elapsedNanos);
        m.put("read", read.toTree());
        m.put("write", write.toTree());
        m.put("errors", errors);
        m.put("interrupted", interrupted);
        if (cpuNanos >= 0) {
            Map<String, Object> cpu = new LinkedHashMap<>();
            cpu.put("process_ns", cpuNanos);
            cpu.put("ns_per_io", Math.round(cpuNanosPerIo()));
            cpu.put("cores_busy", Math.round(100.0 * cpuNanos / Math.max(1, elapsedNanos)) / 100.0);
            m.put("cpu", cpu);
        }
        return m;
    }

    public String toText() {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%s: rw=%s bs=%d iodepth=%d numjobs=%d, ran %.2fs%s%s%n",
                device, spec.rw().fioName(), spec.blockSize(), spec.iodepth(), spec.numjobs(),
                elapsedNanos / 1e9, spec.rampNanos() > 0
                        ? String.format(Locale.ROOT, " after a %.2fs ramp (not counted)", spec.rampNanos() / 1e9) : "",
                interrupted ? " (interrupted)" : ""));
        appendDirection(sb, "read", read);
        appendDirection(sb, "write", write);
        if (errors > 0) {
            sb.append("  errors: ").append(errors).append(" I/Os failed\n");
        }
        if (cpuNanosPerIo() >= 0) {
            sb.append(String.format(Locale.ROOT, "  cpu: %.2f us per I/O, %.2f cores busy (user+sys of the process "
                    + "during the run)%n", cpuNanosPerIo() / 1000, (double) cpuNanos / Math.max(1, elapsedNanos)));
        }
        return sb.toString();
    }

    private static void appendDirection(StringBuilder sb, String name, Direction d) {
        if (d.ios == 0) {
            return;
        }
        sb.append(String.format(Locale.ROOT, "  %-5s IOPS=%s, BW=%s/s, ios=%d, bytes=%s%n", name,
                Sizes.formatCount(d.iops), Sizes.formatBytes(d.bytesPerSecond), d.ios, Sizes.formatBytes(d.bytes)));
        sb.append(String.format(Locale.ROOT, "        lat (usec): p50=%s, p99=%s, p99.9=%s, max=%s, mean=%s%n",
                usec(d.p50), usec(d.p99), usec(d.p999), usec(d.max), usec((long) d.mean)));
    }

    private static String usec(long nanos) {
        return nanos < 10_000 ? String.format(Locale.ROOT, "%.2f", nanos / 1e3)
                : String.format(Locale.ROOT, "%.0f", nanos / 1e3);
    }
}
