package io.hostwide.target.core;

import io.hostwide.target.TargetCommand;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@link IoQueue} with a fixed depth: at most {@code depth} commands queued or running, served by
 * {@code threads} daemon workers. Entries are (command, work) pairs held in two parallel rings guarded by the
 * queue's lock, so offering allocates nothing.
 */
public final class BoundedIoQueue implements IoQueue {
    private final int depth;
    private final ArrayBlockingQueue<Entry> free;
    private final ArrayBlockingQueue<Entry> ready;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final Thread[] workers;
    private volatile boolean closed;

    private static final class Entry {
        TargetCommand cmd;
        Work work;
    }

    public BoundedIoQueue(String name, int depth, int threads) {
        this.depth = Math.max(1, depth);
        this.free = new ArrayBlockingQueue<>(this.depth);
        this.ready = new ArrayBlockingQueue<>(this.depth);
        for (int i = 0; i < this.depth; i++) {
            free.add(new Entry());
        }
        int n = Math.max(1, Math.min(threads, this.depth));
        this.workers = new Thread[n];
        for (int i = 0; i < n; i++) {
            Thread t = new Thread(this::serve, name + "-io-" + i);
            t.setDaemon(true);
            workers[i] = t;
            t.start();
        }
    }

    @Override
    public boolean offer(TargetCommand cmd, Work work) {
        if (closed) {
            return false;
        }
        Entry e = free.poll();
        if (e == null) {
            return false;
        }
        e.cmd = cmd;
        e.work = work;
        inFlight.incrementAndGet();
        ready.add(e); // never fails: entries are bounded by the free list
        return true;
    }

    private void serve() {
        while (!closed || !ready.isEmpty()) {
            Entry e;
            try {
                e = ready.poll(100, TimeUnit.MILLISECONDS);
            } catch (InterruptedException ie) {
                if (closed) {
                    break;
                }
                continue;
            }
            if (e == null) {
                continue;
            }
            TargetCommand cmd = e.cmd;
            Work w = e.work;
            e.cmd = null;
            e.work = null;
            try {
                w.run(cmd);
            } finally {
                inFlight.decrementAndGet();
                free.add(e); // the slot is free only once the command has finished: depth bounds queued + running
            }
        }
    }

    @Override
    public int inFlight() { return inFlight.get(); }

    @Override
    public int depth() { return depth; }

    /** Stops accepting work, lets queued commands finish, and joins the workers. */
    @Override
    public void close() {
        closed = true;
        for (Thread t : workers) {
            try {
                t.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
