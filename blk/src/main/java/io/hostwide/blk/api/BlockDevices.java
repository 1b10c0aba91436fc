package io.hostwide.blk.api;

import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;

/**
 * Opens block devices by spec, {@code kind[:params]}: {@code "null"},
 * {@code "null:submit_queues=4,hw_queue_depth=64,completion_nsec=10000"}. Each kind
 * ({@code null} here in blk, {@code loop}, {@code debug}, {@code iscsi} above) is a
 * {@link ServiceLoader} provider of {@link BlockDeviceProvider}, or registered explicitly.
 */
public final class BlockDevices {
    private static final Map<String, BlockDeviceProvider> PROVIDERS = new TreeMap<>();

    static {
        // Every kind, blk's own null device included, announces itself in META-INF/services,
        // so open("loop:...") works without the caller loading those classes first, and this
        // package never names a device built on it (which made blk.api <-> blk.nullb a cycle).
        for (BlockDeviceProvider p : ServiceLoader.load(BlockDeviceProvider.class, BlockDevices.class.getClassLoader())) {
            PROVIDERS.putIfAbsent(p.kind(), p);
        }
    }

    private BlockDevices() {
    }

    public static synchronized void register(BlockDeviceProvider p) {
        PROVIDERS.put(p.kind(), p);
    }

    public static BlockDevice open(String spec) {
        if (spec == null || spec.isBlank()) {
            throw new IllegalArgumentException("empty device spec (expected kind[:k=v,...], e.g. null:submit_queues=2)");
        }
        int colon = spec.indexOf(':');
        String kind = (colon < 0 ? spec : spec.substring(0, colon)).strip();
        String params = colon < 0 ? "" : spec.substring(colon + 1);
        BlockDeviceProvider p;
        synchronized (BlockDevices.class) {
            p = PROVIDERS.get(kind);
        }
        if (p == null) {
            throw new IllegalArgumentException("unknown device kind '" + kind + "' (known: " + kinds() + ")");
        }
        return p.open(params);
    }

    public static synchronized String kinds() {
        return String.join(", ", PROVIDERS.keySet());
    }
}
