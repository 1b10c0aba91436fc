package io.hostwide.blk;

import io.hostwide.blk.exec.Kblockd;
import io.hostwide.blk.stat.TagSetSnapshot;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A driver instance's tag set ({@code struct blk_mq_tag_set}), shared by all of its
 * request queues: per-hctx {@link Tags}, or one host-wide {@link Tags} for all
 * hctxs with {@link TagSetFlags#TAG_HCTX_SHARED}. Adding a second queue sets
 * {@link TagSetFlags#TAG_QUEUE_SHARED} on every hctx (fair sharing on); going back
 * to one clears it.
 *
 * <p>The kernel freezes the queues while flipping TAG_QUEUE_SHARED so nr_active
 * stays consistent; here each request remembers whether it was counted
 * ({@code RQF_MQ_INFLIGHT}), so the flag can change under I/O without a freeze.
 */
public final class TagSet implements AutoCloseable {
    final TagSetConfig config;
    final BlkMqOps ops;
    final Kblockd kblockd;
    final boolean hostTagset;
    /** One per hctx index; every element is {@link #sharedTags} with host-wide tags. */
    final Tags[] tags;
    final Tags sharedTags;
    private final List<Tags> allocated = new ArrayList<>();
    private final CopyOnWriteArrayList<RequestQueue> tagList = new CopyOnWriteArrayList<>();
    private boolean closed;
    /** {@link SharedTagModes} bits; written rarely, read (plain volatile) on every tag allocation and completion. */
    private volatile int sharedTagModes = SharedTagModes.IMPROVED;
    /** At least this many alloc-hint slots, so the submitters of many queues on one set each get their own. */
    static final int MIN_ALLOC_HINTS = 64;
    /** Alloc-hint slots of every bitmap of this set: one per submitter, reused round-robin beyond this. */
    final int nrAllocHints;
    private final AtomicInteger nextAllocHint = new AtomicInteger();

    /**
     * {@code blk_mq_alloc_tag_set}. If the request pools cannot be allocated the depth
     * is halved, down to reserved+1, as the kernel does; {@link #config()} reports the
     * depth in effect. On any other failure everything taken so far is released
     * ({@link BlkMqOps#exitRequest} for every initialised request) and the error propagates.
     */
    public TagSet(TagSetConfig config, BlkMqOps ops, Kblockd kblockd) {
        this.ops = ops;
        this.kblockd = kblockd;
        this.hostTagset = config.hostTagset();
        this.nrAllocHints = Math.max(config.nrCtx(), MIN_ALLOC_HINTS);
        this.tags = new Tags[config.nrHwQueues()];
        TagSetConfig cfg = config;
        for (;;) {
            try {
                allocTags(cfg);
                break;
            } catch (OutOfMemoryError oom) {
                releaseAll();
                int halved = cfg.queueDepth() / 2;
                if (halved < cfg.reservedTags() + 1) {
                    throw oom;
                }
                System.getLogger(TagSet.class.getName()).log(System.Logger.Level.WARNING,
                        "tag set: out of memory at queue_depth " + cfg.queueDepth() + ", reduced to " + halved);
                cfg = cfg.withQueueDepth(halved);
            } catch (RuntimeException | Error e) {
                releaseAll();
                throw e;
            }
        }
        this.config = cfg;
        this.sharedTags = hostTagset ? tags[0] : null;
    }

    private void allocTags(TagSetConfig cfg) {
        if (hostTagset) {
            Tags shared = newTags(nrAllocHints, cfg.queueDepth(), cfg.reservedTags(), cfg.flags());
            java.util.Arrays.fill(tags, shared);
        } else {
            for (int i = 0; i < tags.length; i++) {
                tags[i] = newTags(nrAllocHints, cfg.queueDepth(), cfg.reservedTags(), cfg.flags());
            }
        }
    }

    /** A tag space with its request pool, each request initialised by the driver. */
    Tags newTags(int depth, int reserved) {
        return newTags(nrAllocHints, depth, reserved, config.flags());
    }

    private Tags newTags(int nrHints, int depth, int reserved, int flags) {
        Tags t = new Tags(depth, reserved, nrHints, (flags & TagSetFlags.TAG_RR) != 0);
        int done = 0;
        try {
            for (; done < t.staticRqs.length; done++) {
                ops.initRequest(t.staticRqs[done]);
            }
        } catch (RuntimeException | Error e) {
            for (int i = 0; i < done; i++) {
                ops.exitRequest(t.staticRqs[i]);
            }
            throw e;
        }
        synchronized (allocated) {
            allocated.add(t);
        }
        return t;
    }

    private void releaseAll() {
        synchronized (allocated) {
            for (Tags t : allocated) {
                for (Request rq : t.staticRqs) {
                    ops.exitRequest(rq);
                }
            }
            allocated.clear();
        }
    }

    /** The alloc-hint slot for a new submitter: each its own, round-robin over {@link #nrAllocHints}. */
    int nextAllocHint() {
        return Math.floorMod(nextAllocHint.getAndIncrement(), nrAllocHints);
    }

    public TagSetConfig config() {
        return config;
    }

    public Kblockd kblockd() {
        return kblockd;
    }

    public BlkMqOps ops() {
        return ops;
    }

    public boolean hostTagset() {
        return hostTagset;
    }

    /** Driver tags of hardware queue {@code i} (the same object for all i with host-wide tags). */
    public Tags tags(int i) {
        return tags[i];
    }

    public List<RequestQueue> queues() {
        return List.copyOf(tagList);
    }

    /**
     * {@code blk_mq_init_queue}: a new request queue on this set. A second queue
     * turns on TAG_QUEUE_SHARED for all (fair sharing).
     */
    public RequestQueue addQueue(String name) {
        synchronized (tagList) {
            if (closed) {
                throw new IllegalStateException("tag set is closed");
            }
            boolean shared = !tagList.isEmpty();
            int flags = config.flags() | (shared ? TagSetFlags.TAG_QUEUE_SHARED : 0);
            RequestQueue q = new RequestQueue(this, name, flags);
            if (tagList.size() == 1) {
                setQueueShared(tagList.get(0), true);
            }
            tagList.add(q);
            if ((config.flags() & TagSetFlags.NO_SCHED_BY_DEFAULT) == 0 && IoSchedulers.defaultName() != null) {
                q.setScheduler(IoSchedulers.defaultName());
            }
            return q;
        }
    }

    /** {@code blk_mq_del_queue_tag_set}: back to one queue clears TAG_QUEUE_SHARED and idles it. */
    void removeQueue(RequestQueue q) {
        synchronized (tagList) {
            if (!tagList.remove(q)) {
                return;
            }
            if (tagList.size() == 1) {
                setQueueShared(tagList.get(0), false);
            }
        }
    }

    /** {@code queue_set_hctx_shared}. */
    private static void setQueueShared(RequestQueue q, boolean shared) {
        for (Hctx h : q.hctxs) {
            if (shared) {
                h.flags |= TagSetFlags.TAG_QUEUE_SHARED;
            } else {
                h.flags &= ~TagSetFlags.TAG_QUEUE_SHARED;
            }
        }
        if (!shared) {
            TagAlloc.queueIdle(q);
        }
    }

    /**
     * Selects the behaviour of Kashyap Desai's three changes (seed 001), see {@link SharedTagModes}. May be changed
     * under I/O: each request remembers where its outstanding count went, and going idle clears both the per-hctx
     * and the per-queue active state, so the counts stay balanced.
     *
     * @throws IllegalArgumentException for unknown bits or both completion-run modes at once
     */
    public void setSharedTagModes(int modes) {
        sharedTagModes = SharedTagModes.check(modes);
    }

    public int sharedTagModes() {
        return sharedTagModes;
    }

    boolean mode(int bit) {
        return (sharedTagModes & bit) != 0;
    }

    /** Frees the tag set; every queue must have been closed. */
    @Override
    public void close() {
        synchronized (tagList) {
            if (closed) {
                return;
            }
            if (!tagList.isEmpty()) {
                throw new IllegalStateException("tag set still has " + tagList.size() + " queue(s)");
            }
            closed = true;
        }
        releaseAll();
    }

    /** The {@code stat} view of this tag set. */
    public TagSetSnapshot snapshot() {
        return Snapshots.of(this);
    }
}
