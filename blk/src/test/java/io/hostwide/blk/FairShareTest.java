package io.hostwide.blk;

import io.hostwide.blk.exec.ManualKblockd;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** hctx_may_queue (digest §2.4): N active queues are each held to max(ceil(depth/N), 4). */
class FairShareTest {

    private static final IoCallback IGNORE = (ud, st) -> { };

    @ParameterizedTest(name = "hostTagset={0}")
    @ValueSource(booleans = {false, true})
    void activeQueuesAreHeldToTheirShare(boolean hostTagset) {
        for (int n : new int[] {2, 3, 4, 8}) {
            checkShare(hostTagset, 64, n);
        }
        checkShare(hostTagset, 10, 3);   // ceil(10/3) = 4
        checkShare(hostTagset, 16, 8);   // ceil(16/8) = 2, raised to the minimum of 4: the pool runs dry
    }

    private void checkShare(boolean hostTagset, int depth, int n) {
        ManualKblockd kb = new ManualKblockd();
        HoldingDriver drv = new HoldingDriver();
        int flags = hostTagset ? TagSetFlags.TAG_HCTX_SHARED : 0;
        TagSet set = new TagSet(new TagSetConfig(1, depth, 0, 0, flags, 2), drv, kb);
        List<RequestQueue> qs = new ArrayList<>();
        List<Submitter> subs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            RequestQueue q = set.addQueue("q" + i);
            qs.add(q);
            subs.add(q.submitter(0));
        }
        // One I/O each makes every queue active (blk_mq_tag_busy) before anyone fills up.
        for (Submitter s : subs) {
            assertThat(s.trySubmit(ReqOp.READ, 0, 512, null, IGNORE, 0)).isTrue();
        }
        assertThat(set.tags(0).activeQueues()).isEqualTo(n);
        int allowed = Math.max((depth + n - 1) / n, 4);
        for (Submitter s : subs) {
            while (s.trySubmit(ReqOp.READ, 0, 512, null, IGNORE, 0)) {
                assertThat(drv.heldFor(s.queue())).isLessThanOrEqualTo(allowed);
            }
        }
        int total = 0;
        for (RequestQueue q : qs) {
            int held = drv.heldFor(q);
            assertThat(held).as("queue %s of %d, depth %d", q.name(), n, depth).isLessThanOrEqualTo(allowed);
            total += held;
        }
        assertThat(total).isEqualTo(Math.min(depth, allowed * n));
        // The first queues fill completely; with oversubscription the last get what is left.
        assertThat(drv.heldFor(qs.get(0))).isEqualTo(Math.min(allowed, depth));
        drv.completeAll(BlkStatus.OK);
        for (RequestQueue q : qs) {
            q.close();
        }
        set.close();
    }

    @ParameterizedTest(name = "hostTagset={0}")
    @ValueSource(booleans = {false, true})
    void idleQueueGivesItsShareBackAfterTheTimeoutWork(boolean hostTagset) {
        ManualKblockd kb = new ManualKblockd();
        HoldingDriver drv = new HoldingDriver();
        int flags = hostTagset ? TagSetFlags.TAG_HCTX_SHARED : 0;
        TagSet set = new TagSet(new TagSetConfig(2, 32, 0, 0, flags, 2), drv, kb);
        RequestQueue a = set.addQueue("a");
        RequestQueue b = set.addQueue("b");
        Submitter sa = a.submitter(0);
        Submitter sb = b.submitter(0);
        assertThat(sa.trySubmit(ReqOp.READ, 0, 512, null, IGNORE, 0)).isTrue();
        assertThat(sb.trySubmit(ReqOp.READ, 0, 512, null, IGNORE, 0)).isTrue();
        while (sa.trySubmit(ReqOp.READ, 0, 512, null, IGNORE, 0)) {
            // fill a's share
        }
        assertThat(drv.heldFor(a)).isEqualTo(16);
        assertThat(set.tags(0).activeQueues()).isEqualTo(2);
        assertThat(a.hctx(0).flags() & TagSetFlags.TAG_QUEUE_SHARED).isNotZero();

        // b completes its I/O and goes quiet; it stays active until its timeout work runs.
        for (Request rq : drv.held) {
            if (rq.queue() == b) {
                drv.held.remove(rq);
                assertThat(rq.complete(BlkStatus.OK)).isTrue();
            }
        }
        assertThat(sa.trySubmit(ReqOp.READ, 0, 512, null, IGNORE, 0)).isFalse();
        kb.advance(6_000_000_000L);   // BLK_MAX_TIMEOUT: b's timer fires, finds nothing in flight
        assertThat(set.tags(0).activeQueues()).isEqualTo(1);
        int more = 0;
        while (sa.trySubmit(ReqOp.READ, 0, 512, null, IGNORE, 0)) {
            more++;
        }
        assertThat(more).isEqualTo(16);   // a now gets the whole depth
        drv.completeAll(BlkStatus.OK);
        b.close();
        assertThat(a.hctx(0).flags() & TagSetFlags.TAG_QUEUE_SHARED).isZero();
        a.close();
        set.close();
    }
}
