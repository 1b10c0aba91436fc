package io.hostwide.management;

import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.lu.DeviceStats;
import io.hostwide.tcm.lu.LatencyHistogram;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The JSON of {@code hostwide admin stats}: per backstore, reads/writes/other commands with bytes and latency
 * percentiles in microseconds (core time: submission to final status, transport excluded), errors and aborts.
 * Counters only grow while the server runs; rates are differences between two calls.
 */
final class StatsReport {
    private static final double[] PERCENTILES = {50, 90, 99, 99.9};

    private StatsReport() {
    }

    static Map<String, Object> of(Map<String, Device> devices, long uptimeNanos) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("uptime_s", uptimeNanos / 1_000_000_000.0);
        List<Map<String, Object>> list = devices.entrySet().stream().map(e -> device(e.getKey(), e.getValue()))
                .toList();
        m.put("backstores", list);
        return m;
    }

    private static Map<String, Object> device(String name, Device d) {
        DeviceStats.Snapshot s = d.stats().snapshot();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", name);
        m.put("reads", side(s.reads()));
        m.put("writes", side(s.writes()));
        m.put("other", side(s.other()));
        m.put("errors", s.errors());
        m.put("aborted", s.aborted());
        return m;
    }

    private static Map<String, Object> side(DeviceStats.Side side) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("ops", side.ops());
        m.put("bytes", side.bytes());
        LatencyHistogram.Snapshot h = side.latency();
        Map<String, Object> lat = new LinkedHashMap<>();
        for (double p : PERCENTILES) {
            String key = "p" + (p == Math.rint(p) ? String.valueOf((long) p) : String.valueOf(p).replace('.', '_'));
            lat.put(key, micros(h.percentile(p)));
        }
        lat.put("max", micros(h.max()));
        m.put("latency_us", lat);
        return m;
    }

    private static double micros(long nanos) {
        return Math.round(nanos / 100.0) / 10.0;
    }
}
