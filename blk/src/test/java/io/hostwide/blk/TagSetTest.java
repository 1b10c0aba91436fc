package io.hostwide.blk;

import io.hostwide.blk.exec.ManualKblockd;
import io.hostwide.blk.stat.HctxSnapshot;
import io.hostwide.blk.stat.TagSetSnapshot;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Tag-set geometry, reserved tags, sharing flags, failed-init cleanup and the stat records. */
class TagSetTest {

    @Test
    void depthLimitsIncludeReservedTags() {
        assertThatThrownBy(() -> new TagSetConfig(1, 10241, 0, 0, 0, 1)).hasMessageContaining("queue_depth");
        assertThatThrownBy(() -> new TagSetConfig(1, 4, 4, 0, 0, 1)).hasMessageContaining("reserved_tags=4");
        assertThatThrownBy(() -> new TagSetConfig(0, 4, 0, 0, 0, 1)).hasMessageContaining("nr_hw_queues");
        assertThatThrownBy(() -> new TagSetConfig(1, 4, 0, 0, TagSetFlags.TAG_QUEUE_SHARED, 1)).hasMessageContaining("TAG_QUEUE_SHARED");
        assertThat(new TagSetConfig(1, 10240, 2, 0, 0, 1).queueDepth()).isEqualTo(10240);
    }

    @Test
    void reservedTagsAreTheLowNumbersAndNotFairShared() {
        ManualKblockd kb = new ManualKblockd();
        HoldingDriver drv = new HoldingDriver();
        TagSet set = new TagSet(new TagSetConfig(1, 8, 2, 0, 0, 1), drv, kb);
        RequestQueue q = set.addQueue("q");
        Submitter s = q.submitter(0);
        IoCallback cb = (ud, st) -> { };
        assertThat(s.trySubmitReserved(ReqOp.FLUSH, 0, 0, null, cb, 0)).isTrue();
        assertThat(s.trySubmitReserved(ReqOp.FLUSH, 0, 0, null, cb, 0)).isTrue();
        assertThat(s.trySubmitReserved(ReqOp.FLUSH, 0, 0, null, cb, 0)).isFalse();
        int normal = 0;
        while (s.trySubmit(ReqOp.READ, 0, 512, null, cb, 0)) {
            normal++;
        }
        assertThat(normal).isEqualTo(6);
        assertThat(drv.held).extracting(Request::tag).containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5, 6, 7);
        assertThat(drv.held).filteredOn(Request::isReserved).extracting(Request::tag).containsExactlyInAnyOrder(0, 1);
        drv.completeAll(BlkStatus.OK);
        q.close();
        set.close();
    }

    /**
     * Guards the skipped same-value store in {@link Tags#setRq}: {@code rqs[tag]} must still name the request
     * that holds the driver tag now, also when a scheduler hands driver tag t to a different request each time.
     */
    @Test
    void rqsNamesTheCurrentHolderOfEachDriverTag() {
        FifoTestScheduler.register();
        for (String sched : new String[] {"none", FifoTestScheduler.NAME}) {
            ManualKblockd kb = new ManualKblockd();
            HoldingDriver drv = new HoldingDriver();
            TagSet set = new TagSet(new TagSetConfig(2, 2, 0, 0, TagSetFlags.TAG_HCTX_SHARED, 2), drv, kb);
            RequestQueue q = set.addQueue("q");
            q.setScheduler(sched);
            Submitter s = q.submitter(0);
            IoCallback cb = (ud, st) -> { };
            java.util.Set<Request> holders = new java.util.HashSet<>();
            for (int round = 0; round < 6; round++) {
                assertThat(s.trySubmit(ReqOp.READ, round * 4096L, 512, null, cb, 0)).isTrue();
                assertThat(s.trySubmit(ReqOp.READ, round * 4096L + 2048, 512, null, cb, 0)).isTrue();
                kb.runDue();
                assertThat(drv.held).as(sched).hasSize(2);
                for (Request rq : drv.held) {
                    assertThat(set.tags(0).rqAt(rq.tag())).as(sched + " round " + round).isSameAs(rq);
                    holders.add(rq);
                }
                drv.completeAll(BlkStatus.OK);
            }
            if (!sched.equals("none")) {
                assertThat(holders).as("a scheduler hands the two driver tags to more than two requests").hasSizeGreaterThan(2);
            }
            q.close();
            set.close();
        }
    }

    /**
     * Alloc hints are per submitter, not per ctx index: job threads on ctx 0 of two queues sharing one tag
     * bitmap start on different words (before, both used hint slot 0 and hammered one word and one hint line).
     */
    @Test
    void submittersOfDifferentQueuesOnOneBitmapStartOnDifferentWords() {
        ManualKblockd kb = new ManualKblockd();
        HoldingDriver drv = new HoldingDriver();
        TagSet set = new TagSet(new TagSetConfig(1, 256, 0, 0, 0, 1), drv, kb);   // 4 words of 64 bits
        RequestQueue a = set.addQueue("a");
        RequestQueue b = set.addQueue("b");
        Submitter sa = a.submitter(0);
        Submitter sb = b.submitter(0);
        assertThat(sa.allocHint).isNotEqualTo(sb.allocHint);
        IoCallback cb = (ud, st) -> { };
        assertThat(sa.trySubmit(ReqOp.READ, 0, 512, null, cb, 1)).isTrue();
        assertThat(sb.trySubmit(ReqOp.READ, 0, 512, null, cb, 2)).isTrue();
        Request ra = drv.held.stream().filter(r -> r.queue() == a).findFirst().orElseThrow();
        Request rb = drv.held.stream().filter(r -> r.queue() == b).findFirst().orElseThrow();
        assertThat(ra.tag() / 64).as("words of the two submitters' first tags").isNotEqualTo(rb.tag() / 64);
        assertThat(set.snapshot().tags().get(0).bitmapTags().allocHint()).hasSize(TagSet.MIN_ALLOC_HINTS);
        drv.completeAll(BlkStatus.OK);
        a.close();
        b.close();
        set.close();
    }

    @Test
    void queueSharedFlagFollowsTheNumberOfQueues() {
        ManualKblockd kb = new ManualKblockd();
        TagSet set = new TagSet(new TagSetConfig(2, 16, 0, 0, TagSetFlags.TAG_HCTX_SHARED, 2), new HoldingDriver(), kb);
        RequestQueue a = set.addQueue("a");
        assertThat(a.snapshot().hctxs().get(1).flags()).isEqualTo("TAG_HCTX_SHARED");
        RequestQueue b = set.addQueue("b");
        for (RequestQueue q : new RequestQueue[] {a, b}) {
            for (HctxSnapshot h : q.snapshot().hctxs()) {
                assertThat(h.flags()).isEqualTo("TAG_QUEUE_SHARED|TAG_HCTX_SHARED");
            }
        }
        TagSetSnapshot ts = set.snapshot();
        assertThat(ts.hostTagset()).isTrue();
        assertThat(ts.tags()).hasSize(1);
        assertThat(ts.queues()).containsExactly("a", "b");
        assertThat(ts.tags().get(0).bitmapTags().depth()).isEqualTo(16);
        b.close();
        assertThat(a.snapshot().hctxs().get(0).flags()).isEqualTo("TAG_HCTX_SHARED");
        a.close();
        set.close();
    }

    @Test
    void failedInitReleasesWhatItTook() {
        AtomicInteger live = new AtomicInteger();
        BlkMqOps ops = new HoldingDriver() {
            @Override
            public void initRequest(Request rq) {
                if (live.get() == 20) {
                    throw new IllegalStateException("no memory for request 20");
                }
                live.incrementAndGet();
            }

            @Override
            public void exitRequest(Request rq) {
                live.decrementAndGet();
            }
        };
        assertThatThrownBy(() -> new TagSet(new TagSetConfig(3, 8, 0, 0, 0, 3), ops, new ManualKblockd()))
                .hasMessageContaining("request 20");
        assertThat(live.get()).isZero();
    }

    @Test
    void depthIsHalvedWhenThePoolsDoNotFit() {
        AtomicInteger live = new AtomicInteger();
        BlkMqOps ops = new HoldingDriver() {
            @Override
            public void initRequest(Request rq) {
                if (live.get() == 100) {
                    throw new OutOfMemoryError("simulated: room for 100 requests");
                }
                live.incrementAndGet();
            }

            @Override
            public void exitRequest(Request rq) {
                live.decrementAndGet();
            }
        };
        TagSet set = new TagSet(new TagSetConfig(3, 64, 1, 0, 0, 3), ops, new ManualKblockd());
        assertThat(set.config().queueDepth()).isEqualTo(32);
        assertThat(set.tags(2).nrTags()).isEqualTo(32);
        assertThat(live.get()).isEqualTo(96);
        set.close();
        assertThat(live.get()).isZero();
    }

    @Test
    void stoppedAndQuiescedQueuesDoNotDispatchUntilRestarted() {
        ManualKblockd kb = new ManualKblockd();
        HoldingDriver drv = new HoldingDriver();
        TagSet set = new TagSet(new TagSetConfig(1, 8, 0, 0, 0, 1), drv, kb);
        RequestQueue q = set.addQueue("q");
        Counting cb = new Counting();
        q.quiesce();
        q.submitter(0).submit(ReqOp.READ, 0, 512, null, cb, 1);
        kb.runDue();
        assertThat(drv.held).isEmpty();
        q.unquiesce();
        kb.runDue();
        assertThat(drv.held).hasSize(1);
        q.stopHwQueues();
        q.submitter(0).submit(ReqOp.READ, 0, 512, null, cb, 2);
        kb.advance(10_000_000);
        assertThat(drv.held).hasSize(1);
        assertThat(q.snapshot().hctxs().get(0).state()).contains("STOPPED");
        q.startStoppedHwQueues();
        kb.runDue();
        assertThat(drv.held).hasSize(2);
        drv.completeAll(BlkStatus.OK);
        assertThat(cb.eachExactlyOnce(2)).isTrue();
        q.close();
        set.close();
    }
}
