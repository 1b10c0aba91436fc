package io.hostwide.blk;

import java.util.List;

/**
 * mq-deadline (block/mq-deadline.c, digest §3.1): one instance per request queue
 * under one lock, queue-wide ({@code QUEUE_FLAG_SQ_SCHED}). Per direction a
 * sector-sorted tree, a FIFO with expiry ({@code read_expire} 500 ms,
 * {@code write_expire} 5 s) and {@code latest_pos}; batches of up to
 * {@code fifo_batch} (16) requests in sector order; reads preferred, but writes get
 * a batch once they were passed over {@code writes_starved} (2) times; back merges
 * through the end-offset hash, front merges through the tree
 * ({@code front_merges}); the survivor of a merge keeps the earlier FIFO time; all
 * but synchronous reads allocate within {@code async_depth}.
 *
 * <p>Not modelled: the three I/O priority levels and {@code prio_aging_expire}
 * (every request is best-effort here, so dispatch is the single-level algorithm),
 * and zoned write locking.
 */
public final class MqDeadline implements IoScheduler {
    public static final String NAME = "mq-deadline";
    static final int READ = 0;
    static final int WRITE = 1;

    private final DeadlineTunables t = new DeadlineTunables();
    private final Object lock = new Object();
    private final SortTree[] sortList = {new SortTree(), new SortTree()};
    private final FifoList[] fifoList = {new FifoList(), new FifoList()};
    private final long[] latestPos = new long[2];
    /** At-head insertions and flushes ({@code dd->dispatch}). */
    private final RqList dispatchList = new RqList();
    private final RqHash hash = new RqHash();
    /** {@code q->last_merge}: the one-hit merge cache. */
    private Request lastMerge;
    private int lastDir = READ;
    private int batching;
    private int starved;
    private long inserted;
    private long merged;
    private long dispatched;
    private final Hctx.Counters completed = new Hctx.Counters();
    /** Requests held; written under the lock, read lock-free by {@link #hasWork}. */
    private volatile int queued;
    private RequestQueue q;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean singleQueue() {
        return true;
    }

    @Override
    public void init(RequestQueue q) {
        this.q = q;
    }

    /** {@code dd_depth_updated}: async_depth = max(1, 3/4 of nr_requests), the 5.x default. */
    @Override
    public void depthUpdated(RequestQueue q, int nrRequests) {
        t.nrRequests = nrRequests;
        t.asyncDepth = Math.max(1, 3 * nrRequests / 4);
        synchronized (lock) {
            hash.size(nrRequests * (q.set.hostTagset ? 1 : q.nrHwQueues()));
        }
    }

    @Override
    public int minShallowDepth() {
        return 1;
    }

    /** {@code dd_limit_depth}: synchronous reads are not limited; everything else gets {@code async_depth}. */
    @Override
    public int limitDepth(ReqOp op) {
        return op == ReqOp.READ ? 0 : t.asyncDepth;
    }

    @Override
    public List<String> attributeNames() {
        return DeadlineTunables.NAMES;
    }

    @Override
    public String attribute(String name) {
        return t.get(name);
    }

    @Override
    public void setAttribute(String name, String value) {
        t.set(name, value);
    }

    /** {@code dd_prepare_request}: a reused slot starts outside the scheduler's structures. */
    @Override
    public void prepareRequest(Request rq) {
        rq.elvPriv = null;
        rq.hashKey = -1;
    }

    @Override
    public boolean hasWork(Hctx hctx) {
        return queued != 0;
    }

    private static int dir(ReqOp op) {
        return op == ReqOp.READ ? READ : WRITE;
    }

    private void updateQueued() {
        queued = dispatchList.size() + fifoList[READ].size() + fifoList[WRITE].size();
    }

    // ---- insertion ----

    /** {@code dd_insert_request}: at-head and flushes to the dispatch list, else merge or sort + FIFO. */
    @Override
    public void insert(Hctx hctx, Request rq, boolean atHead) {
        RqList free = null;
        synchronized (lock) {
            if (atHead || rq.op == ReqOp.FLUSH) {
                if (atHead) {
                    dispatchList.addHead(rq);
                } else {
                    dispatchList.addTail(rq);
                }
            } else {
                free = insertMerge(rq);
                if (free == null) {
                    add(rq);
                }
            }
            updateQueued();
        }
        freeAll(free);
    }

    /** {@code dd_insert_requests}: a plug's worth under one lock acquisition. */
    @Override
    public void insertRequests(Hctx hctx, RqList list) {
        RqList free = null;
        synchronized (lock) {
            for (Request rq = list.pollFirst(); rq != null; rq = list.pollFirst()) {
                if (rq.op == ReqOp.FLUSH) {
                    dispatchList.addTail(rq);
                    continue;
                }
                RqList f = insertMerge(rq);
                if (f == null) {
                    add(rq);
                } else if (free == null) {
                    free = f;
                } else {
                    free.spliceTail(f);
                }
            }
            updateQueued();
        }
        freeAll(free);
    }

    private void add(Request rq) {
        int dir = dir(rq.op);
        rq.elvPriv = this;
        sortList[dir].insert(rq);
        rq.fifoTime = q.kblockd.nanoTime() + (dir == READ ? t.readExpireNanos : t.writeExpireNanos);
        fifoList[dir].addTail(rq);
        rq.hashKey = -1;
        if (Merge.rqMergeable(rq)) {
            hash.add(rq);
            if (lastMerge == null) {
                lastMerge = rq;
            }
        }
        inserted++;
    }

    /** {@code deadline_remove_request}. */
    private void remove(Request rq) {
        int dir = dir(rq.op);
        sortList[dir].remove(rq);
        fifoList[dir].remove(rq);
        unhash(rq);
        if (lastMerge == rq) {
            lastMerge = null;
        }
        rq.elvPriv = null;
    }

    private void unhash(Request rq) {
        if (rq.hashKey >= 0) {
            hash.remove(rq);
            rq.hashKey = -1;
        }
    }

    private void rehash(Request rq) {
        unhash(rq);
        hash.add(rq);
    }

    /**
     * {@code elv_attempt_insert_merge}: the new request joins the one-hit cache or,
     * with full merging, the request ending where it starts, repeatedly, since the
     * grown request may now continue another. Returns the requests to free, or null
     * when {@code rq} was not merged.
     */
    private RqList insertMerge(Request rq) {
        int nm = q.nomerges;
        if (nm == 2) {
            return null;
        }
        if (lastMerge != null && Merge.requests(lastMerge, rq)) {
            rehash(lastMerge);
            merged++;
            return freeList(null, rq);
        }
        if (nm == 1) {
            return null;
        }
        RqList free = null;
        Request cur = rq;
        for (;;) {
            Request prev = hash.find(cur.offset);
            if (prev == null || prev == cur || !Merge.requests(prev, cur)) {
                return free;
            }
            if (cur.elvPriv == this) {
                removeMergedAway(prev, cur);
            }
            rehash(prev);
            merged++;
            lastMerge = prev;
            free = freeList(free, cur);
            cur = prev;
        }
    }

    /**
     * {@code dd_merged_requests} + removal: {@code gone} (queued here) joined
     * {@code survivor}, which keeps the earlier FIFO time and that request's FIFO place.
     */
    private void removeMergedAway(Request survivor, Request gone) {
        int dir = dir(gone.op);
        FifoList fifo = fifoList[dir];
        if (gone.fifoTime - survivor.fifoTime < 0) {
            fifo.remove(survivor);
            fifo.replace(gone, survivor);
            survivor.fifoTime = gone.fifoTime;
        } else {
            fifo.remove(gone);
        }
        sortList[dir].remove(gone);
        unhash(gone);
        if (lastMerge == gone) {
            lastMerge = null;
        }
        gone.elvPriv = null;
    }

    private static RqList freeList(RqList l, Request rq) {
        RqList out = l == null ? new RqList() : l;
        out.addTail(rq);
        return out;
    }

    private static void freeAll(RqList free) {
        if (free == null) {
            return;
        }
        for (Request rq = free.pollFirst(); rq != null; rq = free.pollFirst()) {
            Completion.freeMergedAway(rq);
        }
    }

    // ---- bio merging ----

    /**
     * {@code dd_bio_merge} → {@code blk_mq_sched_try_merge}: the one-hit cache, then
     * (nomerges 0) the hash for a back merge and the tree for a front merge; after a
     * merge, the grown request tries to swallow its sector-order neighbour
     * ({@code attempt_back_merge} / {@code attempt_front_merge}).
     */
    @Override
    public boolean bioMerge(Hctx hctx, Bio bio) {
        if (queued == 0) {
            return false;   // nothing to merge with; merging is opportunistic, a racing insert may be missed
        }
        RqList free = null;
        synchronized (lock) {
            int nm = q.nomerges;
            if (nm == 2) {
                return false;
            }
            Request rq = null;
            int where = Merge.NONE;
            if (lastMerge != null) {
                where = Merge.tryMerge(lastMerge, bio);
                rq = where == Merge.NONE ? null : lastMerge;
            }
            if (rq == null && nm == 0) {
                Request b = hash.find(bio.offset);
                if (b != null && Merge.tryMerge(b, bio) == Merge.BACK) {
                    rq = b;
                    where = Merge.BACK;
                } else if (t.frontMerges) {
                    Request f = sortList[dir(bio.op)].find(bio.end());
                    if (f != null && Merge.tryMerge(f, bio) == Merge.FRONT) {
                        rq = f;
                        where = Merge.FRONT;
                    }
                }
            }
            if (rq == null) {
                return false;
            }
            free = applyBioMerge(rq, bio, where);
            updateQueued();
        }
        freeAll(free);
        return true;
    }

    private RqList applyBioMerge(Request rq, Bio bio, int where) {
        SortTree tree = sortList[dir(rq.op)];
        if (where == Merge.FRONT) {
            // The start moves: re-sort (dd_request_merged).
            tree.remove(rq);
            Merge.apply(rq, bio, where);
            tree.insert(rq);
        } else {
            Merge.apply(rq, bio, where);
            rehash(rq);
        }
        merged++;
        RqList free = null;
        Request survivor = rq;
        if (where == Merge.BACK) {
            Request next = tree.next(rq);
            if (next != null && Merge.requests(rq, next)) {
                removeMergedAway(rq, next);
                rehash(rq);
                merged++;
                free = freeList(null, next);
            }
        } else {
            Request prev = tree.prev(rq);
            if (prev != null && Merge.requests(prev, rq)) {
                removeMergedAway(prev, rq);
                rehash(prev);
                merged++;
                free = freeList(null, rq);
                survivor = prev;
            }
        }
        lastMerge = survivor;
        return free;
    }

    // ---- dispatch ----

    /** {@code dd_dispatch_request}. */
    @Override
    public Request dispatch(Hctx hctx) {
        synchronized (lock) {
            Request rq = dispatchList.pollFirst();
            if (rq == null) {
                rq = dispatchSorted(q.kblockd.nanoTime());
            }
            if (rq != null) {
                dispatched++;
                updateQueued();
            }
            return rq;
        }
    }

    /** {@code __dd_dispatch_request} for the one priority level. */
    private Request dispatchSorted(long now) {
        Request rq = nextRequest(lastDir);
        if (rq != null && batching < t.fifoBatch) {
            return moveOut(rq, lastDir);   // continue the batch
        }
        int dir;
        if (!fifoList[READ].isEmpty()) {
            // Reads are preferred, but each pass over waiting writes counts towards writes_starved.
            if (!fifoList[WRITE].isEmpty() && starved++ >= t.writesStarved) {
                starved = 0;
                dir = WRITE;
            } else {
                dir = READ;
            }
        } else if (!fifoList[WRITE].isEmpty()) {
            starved = 0;
            dir = WRITE;
        } else {
            return null;
        }
        Request next = nextRequest(dir);
        rq = fifoExpired(dir, now) || next == null ? fifoList[dir].peekFirst() : next;
        batching = 0;
        return moveOut(rq, dir);
    }

    /** {@code deadline_next_request}: the first request at or after {@code latest_pos}. */
    private Request nextRequest(int dir) {
        return sortList[dir].ceiling(latestPos[dir]);
    }

    /** {@code deadline_check_fifo}: the oldest request of {@code dir} has expired. */
    private boolean fifoExpired(int dir, long now) {
        Request head = fifoList[dir].peekFirst();
        return head != null && now - head.fifoTime >= 0;
    }

    /** {@code deadline_move_request}. */
    private Request moveOut(Request rq, int dir) {
        lastDir = dir;
        batching++;
        latestPos[dir] = rq.end();
        remove(rq);
        return rq;
    }

    @Override
    public void finishRequest(Request rq) {
        completed.inc();
    }

    /** The debugfs view: {@code batching}, {@code starved}, {@code queued} and the counters. */
    public String stats() {
        synchronized (lock) {
            return "batching " + batching + "\nstarved " + starved + "\nlast_dir " + (lastDir == READ ? "read" : "write")
                    + "\nqueued " + queued + "\ninserted " + inserted + "\nmerged " + merged
                    + "\ndispatched " + dispatched + "\ncompleted " + completed.get() + "\n";
        }
    }

    /** Requests merged inside the scheduler (bio and request merges). */
    public long merged() {
        synchronized (lock) {
            return merged;
        }
    }
}
