package io.hostwide.bench.sbitmap;

import io.hostwide.sbitmap.SbitmapConfig;
import io.hostwide.sbitmap.ShardedSbitmapQueue;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import org.jctools.queues.MpmcArrayQueue;

/**
 * A tag allocator as the benchmark sees it: {@code get} returns a free tag or -1,
 * {@code put} returns one. {@code hint} is the caller's slot; only the sbitmap
 * uses it. The queue-based pools are the usual ways to build a tag pool in Java.
 */
interface TagPool {

    int get(int hint);

    void put(int tag, int hint);

    /**
     * get+put pairs until {@code stop} is set; returns how many. Each pool has its
     * own copy of this loop so its calls stay monomorphic when one harness drives
     * several pools in turn ({@link InterleavedPoolRun}).
     */
    long spin(int hint, java.util.concurrent.atomic.AtomicBoolean stop);

    static TagPool create(String kind, int depth, int nrHints) {
        return switch (kind) {
            case "sbitmap" -> new Sharded(depth, nrHints);
            case "semaphoreClq" -> new SemaphoreClq(depth);
            case "arrayBlockingQueue" -> new Abq(depth);
            case "jctoolsMpmc" -> new Mpmc(depth);
            default -> throw new IllegalArgumentException("unknown pool " + kind);
        };
    }

    /** hostwide's {@link ShardedSbitmapQueue}. */
    final class Sharded implements TagPool {
        private final ShardedSbitmapQueue q;

        Sharded(int depth, int nrHints) {
            q = new ShardedSbitmapQueue(SbitmapConfig.of(depth, nrHints));
        }

        @Override
        public int get(int hint) {
            return q.get(hint);
        }

        @Override
        public void put(int tag, int hint) {
            q.clear(tag, hint);
        }

        @Override
        public long spin(int hint, java.util.concurrent.atomic.AtomicBoolean stop) {
            long n = 0;
            while (!stop.getOpaque()) {
                int tag = get(hint);
                if (tag >= 0) {
                    put(tag, hint);
                }
                n++;
            }
            return n;
        }
    }

    /** A counting semaphore in front of a linked free list (allocates a node per put). */
    final class SemaphoreClq implements TagPool {
        private final Semaphore permits;
        private final ConcurrentLinkedQueue<Integer> free = new ConcurrentLinkedQueue<>();

        SemaphoreClq(int depth) {
            permits = new Semaphore(depth);
            for (int i = 0; i < depth; i++) {
                free.add(i);
            }
        }

        @Override
        public int get(int hint) {
            if (!permits.tryAcquire()) {
                return -1;
            }
            return free.poll();
        }

        @Override
        public void put(int tag, int hint) {
            free.offer(tag);
            permits.release();
        }

        @Override
        public long spin(int hint, java.util.concurrent.atomic.AtomicBoolean stop) {
            long n = 0;
            while (!stop.getOpaque()) {
                int tag = get(hint);
                if (tag >= 0) {
                    put(tag, hint);
                }
                n++;
            }
            return n;
        }
    }

    /** A lock-based bounded queue of free tags. */
    final class Abq implements TagPool {
        private final ArrayBlockingQueue<Integer> free;

        Abq(int depth) {
            free = new ArrayBlockingQueue<>(depth);
            for (int i = 0; i < depth; i++) {
                free.add(i);
            }
        }

        @Override
        public int get(int hint) {
            Integer t = free.poll();
            return t == null ? -1 : t;
        }

        @Override
        public void put(int tag, int hint) {
            free.offer(tag);
        }

        @Override
        public long spin(int hint, java.util.concurrent.atomic.AtomicBoolean stop) {
            long n = 0;
            while (!stop.getOpaque()) {
                int tag = get(hint);
                if (tag >= 0) {
                    put(tag, hint);
                }
                n++;
            }
            return n;
        }
    }

    /** JCTools' lock-free bounded MPMC array queue of free tags. */
    final class Mpmc implements TagPool {
        private final MpmcArrayQueue<Integer> free;

        Mpmc(int depth) {
            free = new MpmcArrayQueue<>(depth);
            for (int i = 0; i < depth; i++) {
                free.offer(i);
            }
        }

        @Override
        public int get(int hint) {
            Integer t = free.poll();
            return t == null ? -1 : t;
        }

        @Override
        public void put(int tag, int hint) {
            free.offer(tag);
        }

        @Override
        public long spin(int hint, java.util.concurrent.atomic.AtomicBoolean stop) {
            long n = 0;
            while (!stop.getOpaque()) {
                int tag = get(hint);
                if (tag >= 0) {
                    put(tag, hint);
                }
                n++;
            }
            return n;
        }
    }
}
