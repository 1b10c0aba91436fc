package io.hostwide.tcm.lu;

import io.hostwide.tcm.spi.ReservationStore;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A RADOS object in memory, for tests and single-process demos of several gateways: one versioned blob, clients
 * (one per gateway, as each gateway is a RADOS client) that load and compare-and-set it, and watches whose
 * notifies are delivered on a thread per watch and acknowledged by returning. Knobs model what goes wrong in a
 * cluster: {@link #partition} (the client's calls fail and its watches break, as after a watch timeout),
 * {@link #stopAcking} (the client's watches silently stop receiving: the notifier times out and fences it, as a
 * notify timeout followed by {@code rados_blocklist_add}), {@link #heal} (a new client instance can connect
 * again), {@link #overwrite} (someone wrote bytes this version cannot read).
 */
public final class InMemoryReservationStore {
    private final Object lock = new Object();
    private long version;                                      // guarded by lock
    private byte[] bytes = new byte[0];                        // guarded by lock
    private final List<WatchImpl> watches = new ArrayList<>(); // guarded by lock
    private final Set<String> unreachable = new HashSet<>();   // guarded by lock: partitioned or fenced clients
    private final Set<String> silent = new HashSet<>();        // guarded by lock
    private final AtomicLong lostRaces = new AtomicLong();
    private final AtomicLong notifies = new AtomicLong();
    private final AtomicLong acknowledged = new AtomicLong();
    private final AtomicLong fenced = new AtomicLong();
    private final Map<String, Client> clients = new LinkedHashMap<>(); // guarded by lock

    /** The store as gateway {@code name} sees it (one client per name). */
    public ReservationStore client(String name) {
        synchronized (lock) {
            return clients.computeIfAbsent(name, Client::new);
        }
    }

    public long version() {
        synchronized (lock) {
            return version;
        }
    }

    public byte[] bytes() {
        synchronized (lock) {
            return bytes.clone();
        }
    }

    /** Compare-and-sets that lost (the races the writers had to decide again). */
    public long lostRaces() { return lostRaces.get(); }

    public long notifies() { return notifies.get(); }

    /** Notifies every watcher acknowledged (notifyWatchers returned true). */
    public long acknowledgedNotifies() { return acknowledged.get(); }

    /** Watchers fenced because they did not acknowledge a notify in time. */
    public long fenced() { return fenced.get(); }

    /** Client {@code name} can no longer reach the store; its watches break. */
    public void partition(String name) {
        List<WatchImpl> broken;
        synchronized (lock) {
            unreachable.add(name);
            broken = removeWatchesOf(name);
        }
        for (WatchImpl w : broken) {
            w.breakWith(new ReservationStore.UnavailableException(name + " partitioned from the store"));
        }
    }

    /** Client {@code name}'s watches stop receiving notifies (and so stop acking); its calls still work. */
    public void stopAcking(String name) {
        synchronized (lock) {
            silent.add(name);
        }
    }

    /** Client {@code name} reaches the store again, unfenced and acking. */
    public void heal(String name) {
        synchronized (lock) {
            unreachable.remove(name);
            silent.remove(name);
        }
    }

    /** Replaces the blob outside any client (a corrupt or foreign object), bumping the version. */
    public void overwrite(byte[] b) {
        synchronized (lock) {
            bytes = b.clone();
            version++;
        }
    }

    private List<WatchImpl> removeWatchesOf(String name) {
        List<WatchImpl> out = new ArrayList<>();
        for (WatchImpl w : watches) {
            if (w.client.equals(name)) {
                out.add(w);
            }
        }
        watches.removeAll(out);
        return out;
    }

    private final class Client implements ReservationStore {
        final String name;

        Client(String name) { this.name = name; }

        private void reachable() throws UnavailableException {
            if (unreachable.contains(name)) { // caller holds lock
                throw new UnavailableException(name + " cannot reach the store (partitioned or fenced)");
            }
        }

        @Override
        public Versioned load() throws UnavailableException {
            synchronized (lock) {
                reachable();
                return new Versioned(version, bytes.clone());
            }
        }

        @Override
        public long compareAndSet(long expected, byte[] b) throws UnavailableException {
            synchronized (lock) {
                reachable();
                if (version != expected) {
                    lostRaces.incrementAndGet();
                    return LOST;
                }
                bytes = b.clone();
                return ++version;
            }
        }

        @Override
        public boolean notifyWatchers(byte[] payload, Duration timeout) throws UnavailableException {
            List<WatchImpl> targets;
            Set<String> quiet;
            synchronized (lock) {
                reachable();
                targets = new ArrayList<>(watches);
                quiet = new HashSet<>(silent);
            }
            notifies.incrementAndGet();
            long deadline = System.nanoTime() + timeout.toNanos();
            Map<WatchImpl, CompletableFuture<Void>> acks = new LinkedHashMap<>();
            for (WatchImpl w : targets) {
                acks.put(w, quiet.contains(w.client) ? new CompletableFuture<>() : w.deliver(payload));
            }
            List<WatchImpl> late = new ArrayList<>();
            for (Map.Entry<WatchImpl, CompletableFuture<Void>> e : acks.entrySet()) {
                try {
                    e.getValue().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (TimeoutException | java.util.concurrent.ExecutionException ex) {
                    late.add(e.getKey());
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    late.add(e.getKey());
                }
            }
            for (WatchImpl w : late) { // fence: blocklist the client, break its watch
                synchronized (lock) {
                    if (!w.client.equals(name)) {
                        unreachable.add(w.client);
                    }
                    watches.remove(w);
                }
                fenced.incrementAndGet();
                w.breakWith(new UnavailableException(w.client + " did not acknowledge a notify: fenced"));
            }
            if (late.isEmpty()) {
                acknowledged.incrementAndGet();
                return true;
            }
            return false;
        }

        @Override
        public Watch watch(Watcher watcher) throws UnavailableException {
            synchronized (lock) {
                reachable();
                WatchImpl w = new WatchImpl(name, watcher);
                watches.add(w);
                return w;
            }
        }

        @Override
        public String toString() { return "InMemoryReservationStore.client(" + name + ")"; }
    }

    private final class WatchImpl implements ReservationStore.Watch {
        final String client;
        final ReservationStore.Watcher watcher;
        /** One delivery thread per watch: notifies reach a watcher in order, as librados' callbacks do. */
        final ExecutorService delivery = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "pr-watch");
            t.setDaemon(true);
            return t;
        });
        volatile boolean healthy = true;

        WatchImpl(String client, ReservationStore.Watcher watcher) {
            this.client = client;
            this.watcher = watcher;
        }

        CompletableFuture<Void> deliver(byte[] payload) {
            try {
                return CompletableFuture.runAsync(() -> watcher.notified(payload.clone()), delivery);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                return CompletableFuture.failedFuture(e);
            }
        }

        void breakWith(Exception cause) {
            if (healthy) {
                healthy = false;
                delivery.shutdown();
                watcher.broken(cause);
            }
        }

        @Override
        public boolean healthy() { return healthy; }

        @Override
        public void close() {
            healthy = false;
            synchronized (lock) {
                watches.remove(this);
            }
            delivery.shutdown();
        }
    }
}
