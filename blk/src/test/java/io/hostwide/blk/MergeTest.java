package io.hostwide.blk;

import io.hostwide.blk.exec.ManualKblockd;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Merging without a scheduler (digest §2.8): plug, software-queue list, limits, nomerges. */
class MergeTest {
    private static final long MS = 1_000_000L;

    private ManualKblockd kb;
    private HoldingDriver drv;
    private TagSet set;
    private RequestQueue q;
    private final Counting cb = new Counting();

    @BeforeEach
    void setUp() {
        kb = new ManualKblockd();
        drv = new HoldingDriver();
        set = new TagSet(new TagSetConfig(1, 32, 0, 0, 0, 1), drv, kb);
        q = set.addQueue("q");
    }

    @AfterEach
    void tearDown() {
        drv.script = rq -> BlkStatus.OK;
        for (int i = 0; i < 10 && q.allocatedRequests() != 0; i++) {
            kb.advance(10 * MS);
            drv.completeAll(BlkStatus.OK);
        }
        q.close();
        set.close();
    }

    private void plugged(ReqOp op, long... offsets) {
        Submitter s = q.submitter(0);
        s.startPlug();
        for (long off : offsets) {
            assertThat(s.trySubmit(op, off, 512, null, cb, off)).isTrue();
        }
        s.finishPlug();
    }

    @Test
    void thePlugMergesWithItsMostRecentRequestBackAndFront() {
        plugged(ReqOp.READ, 1024, 1536, 512, 4096);
        assertThat(drv.held).hasSize(2);
        Request first = drv.held.peek();
        assertThat(first.offset()).isEqualTo(512);
        assertThat(first.nrSegments()).isEqualTo(3);
        assertThat(first.segmentLength(0)).isEqualTo(512);
        assertThat(q.snapshot().readMerges()).isEqualTo(2);
        drv.completeAll(BlkStatus.IOERR);
        assertThat(cb.eachExactlyOnce(4)).isTrue();
        assertThat(cb.status(BlkStatus.IOERR)).isEqualTo(4);
    }

    @Test
    void readsAndWritesNeverMerge() {
        plugged(ReqOp.READ, 0);
        plugged(ReqOp.WRITE, 512);
        Submitter s = q.submitter(0);
        s.startPlug();
        s.trySubmit(ReqOp.READ, 0, 512, null, cb, 10);
        s.trySubmit(ReqOp.WRITE, 512, 512, null, cb, 11);
        s.finishPlug();
        assertThat(q.merges()).isZero();
        assertThat(drv.held).hasSize(4);
    }

    @Test
    void maxSegmentsAndMaxSectorsBoundAMergedRequest() {
        q.setMaxSegments(2);
        plugged(ReqOp.WRITE, 0, 512, 1024, 1536);
        assertThat(drv.held).hasSize(2);
        drv.completeAll(BlkStatus.OK);
        q.setMaxSegments(Request.MAX_SEGMENTS);
        q.setMaxSectorsKb(4);   // 8 sectors: at most 4096 bytes per merged request
        long[] offs = new long[10];
        for (int i = 0; i < offs.length; i++) {
            offs[i] = 8192 + i * 512L;
        }
        plugged(ReqOp.WRITE, offs);
        assertThat(drv.held).hasSize(2);
        assertThat(drv.held.peek().length()).isEqualTo(4096);
        assertThatThrownBy(() -> q.setMaxSegments(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> q.setMaxSegments(RequestQueue.MAX_SEGMENTS_LIMIT + 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> q.setMaxSectorsKb(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> q.setNomerges(3)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void waitingInTheSoftwareQueueBiosMergeIntoTheLastFewRequests() {
        drv.script = rq -> BlkStatus.RESOURCE;
        Submitter s = q.submitter(0);
        assertThat(s.trySubmit(ReqOp.READ, 0, 512, null, cb, 0)).isTrue();
        assertThat(q.hctx(0).dispatchBusy()).as("driver pushed back: later I/O waits in the ctx list").isPositive();
        assertThat(s.trySubmit(ReqOp.READ, 4096, 512, null, cb, 1)).isTrue();
        assertThat(s.trySubmit(ReqOp.READ, 4608, 512, null, cb, 2)).isTrue();   // back merge
        assertThat(s.trySubmit(ReqOp.READ, 3584, 512, null, cb, 3)).isTrue();   // front merge
        assertThat(q.merges()).isEqualTo(2);
        drv.script = rq -> BlkStatus.OK;
        kb.advance(10 * MS);
        assertThat(drv.held).hasSize(2);
        drv.completeAll(BlkStatus.OK);
        assertThat(cb.eachExactlyOnce(4)).isTrue();
    }

    @Test
    void nomergesOneKeepsTheSimpleMergesAndTwoStopsAll() {
        q.setNomerges(1);
        plugged(ReqOp.READ, 0, 512);
        assertThat(q.merges()).isEqualTo(1);
        q.setNomerges(2);
        plugged(ReqOp.READ, 8192, 8704);
        assertThat(q.merges()).isEqualTo(1);
        assertThat(q.snapshot().nomerges()).isEqualTo(2);
    }

    /**
     * REQ_NOMERGE: neighbours in one plug stay one request each, and a plain bio does not merge into a NOMERGE
     * request either (bench batches its re-issues in a plug and keeps --bs the command size).
     */
    @Test
    void nomergeRequestsKeepTheirSizeInAPlug() {
        Submitter s = q.submitter(0);
        s.startPlug();
        for (long off : new long[] {0, 512, 1024}) {
            assertThat(s.trySubmit(ReqOp.READ, ReqFlags.NOMERGE, off, 512, null, cb, off)).isTrue();
        }
        assertThat(s.trySubmit(ReqOp.READ, 1536, 512, null, cb, 1536)).isTrue();   // would back-merge into 1024
        s.finishPlug();
        assertThat(q.merges()).isZero();
        assertThat(drv.held).hasSize(4);
        assertThat(drv.held).allMatch(rq -> rq.length() == 512);
        drv.completeAll(BlkStatus.OK);
        assertThat(cb.eachExactlyOnce(4)).isTrue();
        assertThatThrownBy(() -> ReqFlags.check(ReqOp.FLUSH, ReqFlags.NOMERGE)).isInstanceOf(IllegalArgumentException.class);
    }
}
