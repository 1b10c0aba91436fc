package io.hostwide.blk;

import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * The registry of schedulers by name ({@code elv_register}). {@code none} is built
 * in and means no scheduler; mq-deadline is registered here, others register themselves.
 */
public final class IoSchedulers {
    public static final String NONE = "none";
    private static final Map<String, Supplier<IoScheduler>> REGISTRY = new TreeMap<>();
    private static String defaultName;

    static {
        REGISTRY.put(MqDeadline.NAME, MqDeadline::new);
    }

    private IoSchedulers() {
    }

    public static synchronized void register(String name, Supplier<IoScheduler> factory) {
        if (name == null || name.isEmpty() || NONE.equals(name)) {
            throw new IllegalArgumentException("bad scheduler name: " + name);
        }
        REGISTRY.put(name, factory);
    }

    /** The scheduler new queues get (unless NO_SCHED_BY_DEFAULT); null means none. */
    public static synchronized String defaultName() {
        return defaultName;
    }

    public static synchronized void setDefault(String name) {
        if (name != null) {
            requireKnown(name);
        }
        defaultName = NONE.equals(name) ? null : name;
    }

    /** A new instance, or null for {@code none}. */
    static synchronized IoScheduler create(String name) {
        if (NONE.equals(name)) {
            return null;
        }
        return REGISTRY.get(requireKnown(name)).get();
    }

    /**
     * The one check of a scheduler name for every way of choosing one ({@code bench --scheduler}, the device
     * specs' {@code scheduler=} knobs, {@code queue/scheduler}): returns {@code name} if it is {@code none} or
     * registered, otherwise throws an {@link IllegalArgumentException} "unknown scheduler 'x' (have: none ...)"
     * that callers prefix with the option or knob it came from.
     */
    public static synchronized String requireKnown(String name) {
        if (name == null || !(NONE.equals(name) || REGISTRY.containsKey(name))) {
            throw new IllegalArgumentException("unknown scheduler '" + name + "' (have: " + names() + ")");
        }
        return name;
    }

    /** {@code queue/scheduler} choices, none first. */
    public static synchronized String names() {
        StringBuilder sb = new StringBuilder(NONE);
        for (String n : REGISTRY.keySet()) {
            sb.append(' ').append(n);
        }
        return sb.toString();
    }
}
