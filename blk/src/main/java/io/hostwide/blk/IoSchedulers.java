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
        if (name != null && !NONE.equals(name) && !REGISTRY.containsKey(name)) {
            throw new IllegalArgumentException("unknown scheduler '" + name + "', have: " + names());
        }
        defaultName = NONE.equals(name) ? null : name;
    }

    /** A new instance, or null for {@code none}. */
    static synchronized IoScheduler create(String name) {
        if (NONE.equals(name)) {
            return null;
        }
        Supplier<IoScheduler> f = REGISTRY.get(name);
        if (f == null) {
            throw new IllegalArgumentException("unknown scheduler '" + name + "', have: " + names());
        }
        return f.get();
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
