package io.hostwide.cli.bench;

import io.hostwide.blk.IoSchedulers;
import io.hostwide.cli.load.BlockDeviceTarget;
import io.hostwide.management.util.Sizes;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code bench --switch-scheduler AT=NAME}: the scheduler of the device's request queue changed while the jobs run,
 * as {@code echo mq-deadline > /sys/block/sdX/queue/scheduler} during a fio run. The block layer freezes and
 * quiesces the queue for the switch (requests in flight finish under the old scheduler, new ones wait), so a switch
 * shows in the progress lines as a dip, never as a lost or doubled request.
 */
final class SchedulerSwitches implements AutoCloseable {

    /** One switch: {@code atNanos} after the run starts, to {@code scheduler}. */
    record Switch(long atNanos, String scheduler) {
    }

    private final List<Switch> plan;
    private final List<Map<String, Object>> done = new ArrayList<>();
    private Thread thread;

    private SchedulerSwitches(List<Switch> plan) {
        this.plan = plan;
    }

    /** Parses each {@code AT=NAME} (a time as {@code --runtime} takes it, a known scheduler); errors name the value. */
    static SchedulerSwitches parse(List<String> specs, long runtimeNanos) {
        List<Switch> plan = new ArrayList<>();
        for (String s : specs) {
            int eq = s.indexOf('=');
            if (eq <= 0 || eq == s.length() - 1) {
                throw new IllegalArgumentException("--switch-scheduler: expected AT=NAME (e.g. 5s=mq-deadline), got '"
                        + s + "'");
            }
            long at = Sizes.parseNanos("--switch-scheduler", s.substring(0, eq));
            if (at <= 0) {
                throw new IllegalArgumentException("--switch-scheduler: the time must be positive, got '" + s + "'");
            }
            if (runtimeNanos > 0 && at >= runtimeNanos) {
                throw new IllegalArgumentException("--switch-scheduler: " + s.substring(0, eq)
                        + " is not before the end of --runtime");
            }
            String name = s.substring(eq + 1);
            try {
                IoSchedulers.requireKnown(name);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--switch-scheduler: " + e.getMessage(), e);
            }
            plan.add(new Switch(at, name));
        }
        plan.sort(Comparator.comparingLong(Switch::atNanos));
        return new SchedulerSwitches(plan);
    }

    boolean isEmpty() {
        return plan.isEmpty();
    }

    /** Starts the switching thread; the run's clock starts now. Each switch prints a line to {@code out} (or none). */
    void start(BlockDeviceTarget target, PrintStream out) {
        if (plan.isEmpty()) {
            return;
        }
        long start = System.nanoTime();
        thread = Thread.ofPlatform().daemon().name("bench-scheduler-switch").start(() -> {
            for (Switch sw : plan) {
                long wait;
                while ((wait = start + sw.atNanos() - System.nanoTime()) > 0) {
                    LockSupport.parkNanos(wait);
                    if (Thread.currentThread().isInterrupted()) {
                        return;   // the run ended first
                    }
                }
                long t0 = System.nanoTime();
                target.scheduler(sw.scheduler());
                long took = System.nanoTime() - t0;
                record(sw, (t0 - start) / 1e9, took / 1e6);
                if (out != null) {
                    out.printf("[%6.1fs] scheduler -> %s (switch took %.1f ms)%n", (t0 - start) / 1e9,
                            sw.scheduler(), took / 1e6);
                    out.flush();
                }
            }
        });
    }

    private synchronized void record(Switch sw, double atSeconds, double tookMillis) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("at_s", Math.round(atSeconds * 1000) / 1000.0);
        m.put("scheduler", sw.scheduler());
        m.put("switch_ms", Math.round(tookMillis * 1000) / 1000.0);
        done.add(m);
    }

    /** The switches made so far, for the JSON result. */
    synchronized List<Map<String, Object>> done() {
        return List.copyOf(done);
    }

    /** Stops the thread; a switch already under way finishes first (the queue is never left half-switched). */
    @Override
    public void close() throws InterruptedException {
        if (thread != null) {
            thread.interrupt();
            thread.join(TimeUnit.SECONDS.toMillis(30));
        }
    }
}
