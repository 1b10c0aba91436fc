package io.hostwide.blk.nullb;

import io.hostwide.blk.BlkStatus;
import io.hostwide.blk.Hctx;
import io.hostwide.blk.IoSchedulers;
import io.hostwide.blk.ReqOp;
import io.hostwide.blk.Request;
import io.hostwide.blk.RequestQueue;
import io.hostwide.blk.TagSet;
import io.hostwide.blk.TagSetConfig;
import io.hostwide.blk.TagSetFlags;
import io.hostwide.blk.api.BlockDevice;
import io.hostwide.blk.api.SubmitHandle;
import io.hostwide.blk.exec.Kblockd;
import io.hostwide.blk.exec.Kblockds;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The null block device (null_blk, digest §5.1): a request queue on its own tag set
 * (or on the shared one with {@code shared_tags}) whose driver completes every
 * request — immediately, at the end of the dispatch batch, or after
 * {@code completion_nsec} — optionally storing data in a sparse page store.
 */
public final class NullDevice implements BlockDevice {
    private static final AtomicInteger NEXT_INDEX = new AtomicInteger();

    private final NullConfig cfg;
    private final TagSet set;
    private final boolean ownsSet;
    private final RequestQueue q;
    private final NullQueue[] nqs;
    private final MemoryStore store;
    private final AtomicInteger nextCtx = new AtomicInteger();
    private final AtomicInteger injectTimeout = new AtomicInteger();
    private final AtomicInteger injectRequeue = new AtomicInteger();

    private NullDevice(NullConfig cfg, TagSet set, boolean ownsSet) {
        this.cfg = cfg;
        this.set = set;
        this.ownsSet = ownsSet;
        this.store = cfg.memoryBacked() ? new MemoryStore(cfg.sizeBytes()) : null;
        Kblockd k = set.kblockd();
        this.q = set.addQueue(cfg.name());
        if (cfg.ioTimeoutMillis() > 0) {
            q.setTimeoutMillis(cfg.ioTimeoutMillis());
        }
        this.nqs = new NullQueue[q.nrHwQueues()];
        for (int i = 0; i < nqs.length; i++) {
            nqs[i] = new NullQueue(k, cfg.name() + "/nq" + i, cfg.completionNsec());
        }
        q.queuedata = this;
        q.setRotational(cfg.rotational());
        q.setNomerges(cfg.nomerges());
        if (!IoSchedulers.NONE.equals(cfg.scheduler())) {
            q.setScheduler(cfg.scheduler());
        }
    }

    /** A device on the process-wide kblockd; {@code shared_tags=1} joins the global shared tag set. */
    public static NullDevice create(NullConfig cfg) {
        return create(cfg, Kblockds.shared());
    }

    /** As {@link #create(NullConfig)} with the given executor (a {@code ManualKblockd} in tests). */
    public static NullDevice create(NullConfig cfg, Kblockd kblockd) {
        if (cfg.sharedTags()) {
            TagSet shared = NullSharedTags.acquire(cfg, kblockd);
            try {
                return new NullDevice(cfg, shared, false);
            } catch (RuntimeException e) {
                NullSharedTags.release(shared);
                throw e;
            }
        }
        TagSet own = newTagSet(cfg, kblockd);
        try {
            return new NullDevice(cfg, own, true);
        } catch (RuntimeException e) {
            own.close();
            throw e;
        }
    }

    /** A device on a tag set the caller made with {@link #newTagSet} and shares among devices (the caller closes it). */
    public static NullDevice createOn(NullConfig cfg, TagSet set) {
        return new NullDevice(cfg, set, false);
    }

    /** A tag set with this config's geometry: submit_queues hctxs of hw_queue_depth tags. */
    public static TagSet newTagSet(NullConfig cfg, Kblockd kblockd) {
        int flags = TagSetFlags.NO_SCHED_BY_DEFAULT
                | (cfg.sharedTagBitmap() ? TagSetFlags.TAG_HCTX_SHARED : 0)
                | (cfg.blocking() ? TagSetFlags.BLOCKING : 0);
        TagSetConfig tc = new TagSetConfig(cfg.submitQueues(), cfg.hwQueueDepth(), 0, 0, flags, 0);
        return new TagSet(tc, new NullOps(), kblockd);
    }

    static String nextName() {
        return "nullb" + NEXT_INDEX.getAndIncrement();
    }

    public NullConfig config() {
        return cfg;
    }

    @Override
    public String name() {
        return cfg.name();
    }

    @Override
    public int logicalBlockSize() {
        return cfg.blockSize();
    }

    @Override
    public long capacityBytes() {
        return cfg.sizeBytes();
    }

    @Override
    public RequestQueue queue() {
        return q;
    }

    public TagSet tagSet() {
        return set;
    }

    /** Pages the memory store holds (0 when not memory-backed). */
    public long pagesAllocated() {
        return store == null ? 0 : store.pagesAllocated();
    }

    @Override
    public SubmitHandle openHandle() {
        int ctx = Math.floorMod(nextCtx.getAndIncrement(), q.nrCtx());
        return new SubmitHandle(this, q.submitter(ctx));
    }

    /**
     * {@code null_queue_rq}. With irqmode=1 the end of the dispatch batch ({@code last}) completes this thread's
     * deferred requests whatever happened to this one (requeued, dropped for a timeout, or refused): a batch that
     * ended on such a request would otherwise leave the earlier ones on a thread that may never dispatch again.
     */
    BlkStatus queueRq(Hctx hctx, Request rq, boolean last) {
        BlkStatus ret = handleRq(hctx, rq);
        if (last && cfg.irqmode() == 1) {
            NullQueue.drainSoftirq();
        }
        return ret;
    }

    private BlkStatus handleRq(Hctx hctx, Request rq) {
        NullCmd cmd = (NullCmd) rq.pdu;
        int every = cfg.requeueEvery();
        int n = every > 0 ? injectRequeue.incrementAndGet() : 1;
        if (every > 0 && n % every == 0) {
            // Alternate the block layer's busy path and the driver requeue path.
            if ((n / every & 1) == 0) {
                return BlkStatus.RESOURCE;
            }
            rq.start();
            rq.requeue(true);
            return BlkStatus.OK;
        }
        cmd.status = transfer(rq);
        rq.start();
        if (cfg.timeoutEvery() > 0 && injectTimeout.incrementAndGet() % cfg.timeoutEvery() == 0) {
            cmd.dropped = true;   // never completed: the timeout handler ends it
            return BlkStatus.OK;
        }
        NullQueue nq = nqs[hctx.queueNum()];
        switch (cfg.irqmode()) {
            case 0 -> rq.complete(cmd.status);
            case 1 -> NullQueue.pushSoftirq(rq);
            default -> nq.addTimer(rq);
        }
        return BlkStatus.OK;
    }

    void commitRqs(Hctx hctx) {
        if (cfg.irqmode() == 1) {
            NullQueue.drainSoftirq();   // this thread's batch: commit_rqs runs on the dispatching thread
        }
    }

    /** The memory work of {@code null_handle_rq}. */
    private BlkStatus transfer(Request rq) {
        ReqOp op = rq.op();
        if (op == ReqOp.DISCARD) {
            if (!cfg.discard()) {
                return BlkStatus.NOTSUPP;
            }
            store.discard(rq.offset(), rq.length());
            return BlkStatus.OK;
        }
        if (store == null || op == ReqOp.FLUSH) {
            return BlkStatus.OK;
        }
        long at = rq.offset();
        // One segment per merged bio, contiguous on the device.
        for (int i = 0, n = rq.nrSegments(); i < n; i++) {
            int len = rq.segmentLength(i);
            if (op == ReqOp.READ) {
                store.read(at, len, rq.segmentBuffer(i));
            } else {
                store.write(at, len, rq.segmentBuffer(i));
            }
            at += len;
        }
        return BlkStatus.OK;
    }

    /** Waits for outstanding I/O, removes the queue, frees the tag set if it is ours (or the last shared user). */
    @Override
    public void close() {
        q.close();
        for (NullQueue nq : nqs) {
            nq.cancel();
        }
        if (ownsSet) {
            set.close();
        } else if (cfg.sharedTags()) {
            NullSharedTags.release(set);
        }
    }
}
