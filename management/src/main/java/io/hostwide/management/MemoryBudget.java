package io.hostwide.management;

import io.hostwide.management.config.ServeConfig;
import io.hostwide.management.util.Sizes;

import io.hostwide.tcm.backstore.RamBudget;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code serve --memory SIZE} means: the JVM's heap and direct-memory limits together. A quarter (at least
 * 64 MiB) is direct memory: connection receive and send buffers and the target core's command buffers; the rest is
 * heap: RAM backstore pages (64 KiB arrays, allocated on first write, at most the RAM budget), sessions, commands. The launcher
 * ({@code bin/memory.sh}) turns the option into {@code -Xmx} and {@code -XX:MaxDirectMemorySize} before the JVM
 * starts, with the same arithmetic in MiB; this class states it for the Java side, which checks that the running JVM
 * has those limits, so {@code java -jar} users get a clear message instead of an unbounded process. Without
 * {@code --memory} the launcher uses half the machine's memory, at most 3 GiB; it says which size it chose in the
 * system property {@value #PROPERTY}.
 */
public record MemoryBudget(long totalMiB, long heapMiB, long directMiB) {

    /** The smallest budget: the JVM, the target core and a handful of sessions. */
    public static final long MIN_MIB = 256;
    public static final long MIN_DIRECT_MIB = 64;
    /** Set by the launcher to the budget it applied (e.g. {@code 2048m}), whether from --memory or its default. */
    public static final String PROPERTY = "hostwide.memory";
    /** How far the JVM's own figures may be from ours: it rounds the heap up to its alignment (2 MiB and more). */
    static final long SLACK_BYTES = 16L << 20;
    private static final long MIB = 1L << 20;

    /** The split of {@code bytes} (rounded down to whole MiB): a quarter direct, at least 64 MiB; the rest heap. */
    public static MemoryBudget of(long bytes) {
        long total = bytes / MIB;
        if (total < MIN_MIB) {
            throw new IllegalArgumentException("--memory: " + bytes + " bytes is less than the minimum "
                    + MIN_MIB + "m (the JVM and target core need about 100 MiB before any session)");
        }
        long direct = Math.max(MIN_DIRECT_MIB, total / 4);
        return new MemoryBudget(total, total - direct, direct);
    }

    /** The JVM options that enforce this budget, as the launcher passes them. */
    public List<String> jvmOptions() {
        return List.of("-Xmx" + heapMiB + "m", "-XX:MaxDirectMemorySize=" + directMiB + "m",
                "-D" + PROPERTY + "=" + totalMiB + "m");
    }

    /**
     * What this JVM was started with: its heap and direct-memory limits in bytes. A direct limit of 0 means none
     * was given, so the JVM's default applies (as much as the heap); an explicit 0 is reported as 1 byte, since it
     * really is a limit (no direct buffer at all).
     */
    public record Limits(long heapBytes, long directBytes) {
        /** The running JVM's limits, as HotSpot reports its flags. */
        public static Limits ofThisJvm() {
            long heap = Runtime.getRuntime().maxMemory();
            long direct = 0;
            try {
                var hotspot = ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class);
                heap = Long.parseLong(hotspot.getVMOption("MaxHeapSize").getValue());
                var d = hotspot.getVMOption("MaxDirectMemorySize");
                if (d.getOrigin() != com.sun.management.VMOption.Origin.DEFAULT) {
                    direct = Math.max(1, Long.parseLong(d.getValue()));
                }
            } catch (RuntimeException | LinkageError e) { // not HotSpot: the heap is still known, direct is not
                direct = 0;
            }
            return new Limits(heap, direct);
        }
    }

    /**
     * Null when {@code jvm} enforces this budget; otherwise what is wrong and how to start the JVM instead. A direct
     * limit of 0 is the JVM's default (as much as the heap), never a match.
     */
    public String mismatch(Limits jvm) {
        boolean heapOk = Math.abs(jvm.heapBytes() - heapMiB * MIB) <= SLACK_BYTES;
        boolean directOk = jvm.directBytes() != 0 && Math.abs(jvm.directBytes() - directMiB * MIB) <= SLACK_BYTES;
        if (heapOk && directOk) {
            return null;
        }
        return "--memory " + totalMiB + "m means a heap of " + heapMiB + " MiB and " + directMiB
                + " MiB of direct memory, but this JVM was started with a heap of at most " + mib(jvm.heapBytes())
                + " and " + (jvm.directBytes() == 0 ? "no direct-memory limit of its own"
                : mib(jvm.directBytes()) + " of direct memory")
                + ": run serve through the hostwide launcher, or start java with " + String.join(" ",
                jvmOptions());
    }

    /**
     * The startup lines about memory: a warning when the configured RAM backstores could not all be written within
     * the RAM budget (their pages come from it; a write past it fails with SPACE ALLOCATION FAILED WRITE PROTECT).
     * {@code ramBytes} is the sum of the RAM backstores' sizes, {@code ramBudgetBytes} the configured
     * {@code limits.ram_budget} or null for the default of this budget's heap.
     */
    public List<String> warnings(long ramBytes, Long ramBudgetBytes) {
        return warnings(ramBytes, ramBudgetBytes, oldGenShare());
    }

    /** As {@link #warnings(long, Long)}, for a collector whose old generation is {@code oldGenShare} of the heap. */
    List<String> warnings(long ramBytes, Long ramBudgetBytes, double oldGenShare) {
        List<String> out = new ArrayList<>();
        long heap = heapMiB * MIB;
        long room = ramBudgetBytes != null ? ramBudgetBytes
                : RamBudget.defaultLimit(heap, oldGenBytes(heap, oldGenShare));
        long suggestion = suggest(ramBytes, oldGenShare);
        if (ramBytes > room) {
            out.add("RAM backstores total " + mib(ramBytes) + " but the RAM budget is " + mib(room)
                    + (ramBudgetBytes != null ? " (limits.ram_budget)" : " (the default for --memory " + totalMiB
                    + "m, of its " + heapMiB + " MiB heap)")
                    + ": writes past it fail with SPACE ALLOCATION FAILED WRITE PROTECT until UNMAP frees pages"
                    + (suggestion > machineMiB() ? " (more than this machine's memory could hold)"
                    : " (to write them full, raise " + (ramBudgetBytes != null ? "limits.ram_budget, and --memory "
                    + "with it," : "--memory") + " to about " + suggestion + "m"
                    + (ramBudgetBytes != null ? " for the default" : "") + ")"));
        }
        return out;
    }

    /**
     * The share of the heap the old generation may take in this JVM (ParallelGC: two thirds; G1 and others
     * without a fixed one: all of it), from the heap pools the JVM reports.
     */
    static double oldGenShare() {
        long heap = Limits.ofThisJvm().heapBytes();
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            String name = pool.getName();
            long max = pool.getUsage() == null ? -1 : pool.getUsage().getMax();
            if (pool.getType() == MemoryType.HEAP && (name.contains("Old Gen") || name.contains("Tenured"))
                    && max > 0 && heap > 0) {
                return Math.min(1.0, (double) max / heap);
            }
        }
        return 1.0;
    }

    /** The old generation of a heap of {@code heapBytes} at that share. */
    static long oldGenBytes(long heapBytes, double oldGenShare) {
        return (long) (heapBytes * oldGenShare);
    }

    /** The machine's memory in MiB, as the JVM sees it (Long.MAX_VALUE when it cannot tell). */
    static long machineMiB() {
        try {
            var os = ManagementFactory.getPlatformMXBean(com.sun.management.OperatingSystemMXBean.class);
            return os == null ? Long.MAX_VALUE : os.getTotalMemorySize() / MIB;
        } catch (RuntimeException | LinkageError e) {
            return Long.MAX_VALUE;
        }
    }

    /**
     * Heap that is not RAM-disk pages: the core, sessions, commands and the collector's working room (measured
     * idle: about 30 MiB used; see README: Memory).
     */
    static final long FIXED_HEAP_MIB = RamBudget.RESERVED_HEAP / MIB;

    /** The --memory whose default RAM budget holds {@code ramBytes} of pages (see RamBudget.defaultLimit). */
    static long suggest(long ramBytes, double oldGenShare) {
        long ramMiB = (ramBytes + MIB - 1) / MIB;
        long heap = Math.max((long) Math.ceil((FIXED_HEAP_MIB + ramMiB) / oldGenShare) + 1, 2 * ramMiB); // +1: rounding
        return Math.max(MIN_MIB, (heap * 4 + 2) / 3); // heap is three quarters of the budget (above 256 MiB)
    }

    /** Memory as the admin status reports it: limits, and what the heap and direct buffers hold now. */
    static Map<String, Object> status(MemoryBudget budget) {
        Map<String, Object> m = new LinkedHashMap<>();
        Limits jvm = Limits.ofThisJvm();
        Runtime rt = Runtime.getRuntime();
        if (budget != null) {
            m.put("budget_mib", budget.totalMiB());
        }
        m.put("heap_max_mib", jvm.heapBytes() / MIB);
        m.put("heap_used_mib", (rt.totalMemory() - rt.freeMemory()) / MIB);
        // without a limit of its own the JVM allows as much direct memory as heap
        m.put("direct_max_mib", (jvm.directBytes() == 0 ? jvm.heapBytes() : jvm.directBytes()) / MIB);
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (pool.getName().equals("direct")) {
                m.put("direct_used_mib", pool.getMemoryUsed() / MIB);
                m.put("direct_buffers", pool.getCount());
            }
        }
        return m;
    }

    /** The startup line about memory: the limits this JVM enforces, and where they came from. */
    public static String line(MemoryBudget b, Limits jvm) {
        String limits = "heap at most " + mib(jvm.heapBytes()) + ", direct memory at most "
                + (jvm.directBytes() == 0 ? "as much (the JVM's default)" : mib(jvm.directBytes()));
        return "memory: " + limits + (b != null ? " (--memory " + b.totalMiB() + "m)"
                : " (no --memory: this JVM's own limits; the hostwide launcher sets them from --memory)");
    }

    /** The RAM backstores' sizes added up: their pages live on the heap. */
    public static long ramBytes(ServeConfig cfg) {
        long sum = 0;
        if (cfg.backstores() != null) {
            for (var e : cfg.backstores().entrySet()) {
                if ("ram".equals(e.getValue().type()) && e.getValue().size() != null) {
                    sum += Sizes.parseBytes("backstores." + e.getKey() + ".size", e.getValue().size());
                }
            }
        }
        return sum;
    }

    static String mib(long bytes) {
        return bytes >= (1L << 30) ? String.format(java.util.Locale.ROOT, "%.2f GiB", bytes / (double) (1L << 30))
                : (bytes / MIB) + " MiB";
    }
}
