package io.hostwide.blk;

import io.hostwide.blk.stat.HctxSnapshot;
import io.hostwide.blk.stat.RequestQueueSnapshot;
import io.hostwide.blk.stat.TagSetSnapshot;
import io.hostwide.blk.stat.TagsSnapshot;

import java.util.ArrayList;
import java.util.List;

/** Builds the immutable {@code stat} records; racy reads, like debugfs. */
final class Snapshots {
    private static final int[] STATE_BITS = {Hctx.S_STOPPED, Hctx.S_TAG_ACTIVE, Hctx.S_SCHED_RESTART, Hctx.S_INACTIVE};
    private static final String[] STATE_NAMES = {"STOPPED", "TAG_ACTIVE", "SCHED_RESTART", "INACTIVE"};

    private Snapshots() {
    }

    static TagsSnapshot of(Tags t) {
        if (t == null) {
            return null;
        }
        return new TagsSnapshot(t.nrTags, t.nrReservedTags, t.activeQueues(), t.busy(), t.bitmapTags.dump(),
                t.breservedTags == null ? null : t.breservedTags.dump());
    }

    static TagSetSnapshot of(TagSet set) {
        List<TagsSnapshot> tags = new ArrayList<>();
        int busy = 0;
        int active = 0;
        if (set.hostTagset) {
            tags.add(of(set.sharedTags));
        } else {
            for (Tags t : set.tags) {
                tags.add(of(t));
            }
        }
        for (TagsSnapshot t : tags) {
            busy += t.busy();
            active = Math.max(active, t.activeQueues());
        }
        List<String> names = new ArrayList<>();
        for (RequestQueue q : set.queues()) {
            names.add(q.name);
        }
        TagSetConfig c = set.config;
        int flags = c.flags() | (names.size() > 1 ? TagSetFlags.TAG_QUEUE_SHARED : 0);
        return new TagSetSnapshot(c.queueDepth(), c.reservedTags(), c.nrHwQueues(), set.hostTagset,
                TagSetFlags.decode(flags), c.effectiveTimeoutNanos() / 1_000_000L, busy, active,
                List.copyOf(names), List.copyOf(tags));
    }

    static RequestQueueSnapshot of(RequestQueue q) {
        List<HctxSnapshot> hs = new ArrayList<>();
        long queued = 0;
        long dispatched = 0;
        for (Hctx h : q.hctxs) {
            HctxSnapshot s = of(h);
            queued += s.queued();
            dispatched += s.dispatched();
            hs.add(s);
        }
        String current = q.schedulerName();
        StringBuilder sched = new StringBuilder();
        for (String n : IoSchedulers.names().split(" ")) {
            sched.append(sched.isEmpty() ? "" : " ").append(n.equals(current) ? "[" + n + "]" : n);
        }
        return new RequestQueueSnapshot(q.name, q.nrRequests, sched.toString(), q.timeoutMillis(),
                q.hctxs.length, q.ctxs.length, q.isQuiesced(), q.inFlight(), q.allocatedRequests(),
                queued, dispatched, completed(q), q.timeoutsFired.get(), q.readMerges.get(), q.writeMerges.get(),
                q.nomerges, q.maxSegments(), q.maxSectorsKb(), q.isRotational(), q.maxHwSectorsKb(), q.maxSegmentSize(),
                q.logicalBlockSize(), q.discardMaxBytes(), q.discardGranularity(), q.writeCache(), q.fua(), q.splits.get(),
                q.flushStages.get(), List.copyOf(hs));
    }

    static HctxSnapshot of(Hctx h) {
        int dispatchLen;
        synchronized (h.dispatch) {
            dispatchLen = h.dispatch.size();
        }
        StringBuilder map = new StringBuilder();
        for (Ctx c : h.ctxs) {
            map.append(h.isCtxPending(c.indexHw) ? '1' : '0');
        }
        return new HctxSnapshot(h.queueNum, h.tags.nrTags, h.tags.nrReservedTags, decodeState(h.state()),
                TagSetFlags.decode(h.flags), h.dispatchBusy, h.run.get(), TagAlloc.activeRequests(h),
                queued(h), dispatched(h), dispatchLen, map.toString(), h.dispatchWait.isQueued(),
                of(h.tags), of(h.schedTags));
    }

    /** {@code hctx->queued}: the sum of its ctxs' counts. */
    static long queued(Hctx h) {
        long n = 0;
        for (Ctx c : h.ctxs) {
            n += c.queued();
        }
        return n;
    }

    /** Dispatched by runs of the hctx plus issued directly by its ctxs' submitters. */
    static long dispatched(Hctx h) {
        long n = h.dispatched.get();
        for (Ctx c : h.ctxs) {
            n += c.dispatched();
        }
        return n;
    }

    /** The queue's completions, counted per ctx. */
    static long completed(RequestQueue q) {
        long n = 0;
        for (Ctx c : q.ctxs) {
            n += c.completed();
        }
        return n;
    }

    static String decodeState(int state) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < STATE_BITS.length; i++) {
            if ((state & STATE_BITS[i]) != 0) {
                sb.append(sb.isEmpty() ? "" : "|").append(STATE_NAMES[i]);
            }
        }
        return sb.toString();
    }
}
