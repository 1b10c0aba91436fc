package io.hostwide.tcm;

import io.hostwide.tcm.spi.Background;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;

/**
 * A {@link Background} that runs nothing until the test steps it, on a virtual clock: {@link #runNext()} advances
 * the clock to the earliest due task and runs it; {@link #advance} runs whatever falls due. Records every delay it
 * was asked for.
 */
public final class ManualBackground implements Background {
    private record Task(long due, long seq, Runnable r) {}

    private final PriorityQueue<Task> queue = new PriorityQueue<>((a, b) ->
            a.due != b.due ? Long.compare(a.due, b.due) : Long.compare(a.seq, b.seq));
    private final List<Long> delays = new ArrayList<>();
    private long now;
    private long seq;

    @Override
    public synchronized void schedule(Runnable task, long delayNanos) {
        delays.add(delayNanos);
        queue.add(new Task(now + Math.max(0, delayNanos), seq++, task));
    }

    @Override
    public synchronized long nanoTime() { return now; }

    @Override
    public synchronized void close() { queue.clear(); }

    public synchronized int pending() { return queue.size(); }

    public synchronized List<Long> delays() { return List.copyOf(delays); }

    /** Runs the earliest task (moving the clock to its due time); false when none is scheduled. */
    public boolean runNext() {
        Task t;
        synchronized (this) {
            t = queue.poll();
            if (t == null) {
                return false;
            }
            now = Math.max(now, t.due);
        }
        t.r.run();
        return true;
    }

    /** Moves the clock forward by {@code nanos}, running every task that falls due on the way. */
    public void advance(long nanos) {
        long until;
        synchronized (this) {
            until = now + nanos;
        }
        while (true) {
            synchronized (this) {
                Task t = queue.peek();
                if (t == null || t.due > until) {
                    now = until;
                    return;
                }
            }
            runNext();
        }
    }

    /** Runs tasks until none is left; returns how many ran. */
    public int runAll() {
        int n = 0;
        while (runNext()) {
            n++;
        }
        return n;
    }
}
