package io.hostwide.blk;

import io.hostwide.blk.exec.ManualKblockd;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The flush state machine (blk-flush.c): PREFLUSH → DATA → POSTFLUSH on one slot, by the queue's cache and FUA. */
class FlushSeqTest {
    private static final long MS = 1_000_000L;

    private final ManualKblockd kb = new ManualKblockd();
    private final HoldingDriver drv = new HoldingDriver();
    private final Counting cb = new Counting();
    private final ByteBuffer buf = ByteBuffer.allocate(4096);
    private TagSet set;
    private RequestQueue q;

    @BeforeEach
    void setUp() {
        set = new TagSet(new TagSetConfig(1, 8, 0, 0, 0, 1), drv, kb);
        q = set.addQueue("q");
    }

    @AfterEach
    void tearDown() {
        for (int i = 0; i < 10 && q.allocatedRequests() != 0; i++) {
            kb.advance(10 * MS);
            drv.completeAll(BlkStatus.OK);
        }
        q.close();
        set.close();
    }

    /** Completes what the driver holds, one stage at a time, recording what each stage showed it. */
    private List<String> runStages(BlkStatus... statuses) {
        List<String> seen = new ArrayList<>();
        for (int i = 0; ; i++) {
            kb.runDue();
            Request rq = drv.held.poll();
            if (rq == null) {
                return seen;
            }
            seen.add(rq.op() + (rq.isFua() ? "+FUA" : ""));
            rq.complete(i < statuses.length ? statuses[i] : BlkStatus.OK);
        }
    }

    private void write(int flags, long ud) {
        q.submitter(0).submit(ReqOp.WRITE, flags, 4096, 4096, buf, cb, ud);
    }

    @Test
    void fuaOnADeviceWithFuaIsOneWriteCarryingIt() {
        q.setWriteCache(true, true);
        write(ReqFlags.FUA, 1);
        assertThat(runStages()).containsExactly("WRITE+FUA");
        assertThat(cb.eachExactlyOnce(1)).isTrue();
        assertThat(q.flushStages()).isZero();
    }

    @Test
    void fuaWithoutDeviceFuaIsAWriteThenAFlushAndCompletesOnceAfterBoth() {
        q.setWriteCache(true, false);
        write(ReqFlags.FUA, 1);
        Request data = drv.held.peek();
        assertThat(data.op()).isEqualTo(ReqOp.WRITE);
        data.complete(BlkStatus.OK);
        drv.held.poll();
        assertThat(cb.total.get()).as("not complete before the post-flush").isZero();
        assertThat(runStages()).containsExactly("FLUSH");
        assertThat(cb.eachExactlyOnce(1)).isTrue();
        assertThat(cb.status(BlkStatus.OK)).isEqualTo(1);
        assertThat(q.flushStages()).isEqualTo(1);
        assertThat(q.snapshot().flushStages()).isEqualTo(1);
        assertThat(q.snapshot().writeCache()).isTrue();
        assertThat(q.snapshot().fua()).isFalse();
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void preflushComesFirstAndFuaFollowsTheQueuesSupport(boolean fua) {
        q.setWriteCache(true, fua);
        write(ReqFlags.PREFLUSH | ReqFlags.FUA, 1);
        assertThat(runStages()).containsExactly(fua ? new String[] {"FLUSH", "WRITE+FUA"}
                : new String[] {"FLUSH", "WRITE", "FLUSH"});
        assertThat(cb.eachExactlyOnce(1)).isTrue();
    }

    @Test
    void withoutAWriteCacheTheFlagsAreDroppedAndABareFlushEndsAtOnce() {
        q.setWriteCache(false, true);
        assertThat(q.fua()).as("FUA means nothing without a cache").isFalse();
        write(ReqFlags.PREFLUSH | ReqFlags.FUA, 1);
        q.submitter(0).submit(ReqOp.FLUSH, 0, 0, null, cb, 2);
        assertThat(cb.perIo.get(2L).get()).as("the FLUSH ended unsent").isEqualTo(1);
        assertThat(runStages()).containsExactly("WRITE");
        assertThat(cb.eachExactlyOnce(2)).isTrue();
    }

    @Test
    void aFailedPreflushEndsTheWriteUnsentWithItsError() {
        q.setWriteCache(true, true);
        write(ReqFlags.PREFLUSH, 1);
        assertThat(runStages(BlkStatus.IOERR)).containsExactly("FLUSH");
        assertThat(cb.eachExactlyOnce(1)).isTrue();
        assertThat(cb.status(BlkStatus.IOERR)).isEqualTo(1);
    }

    @Test
    void flaggedWritesNeverMerge() {
        q.setWriteCache(true, true);
        Submitter s = q.submitter(0);
        s.startPlug();
        s.submit(ReqOp.WRITE, ReqFlags.FUA, 0, 512, buf, cb, 1);
        s.submit(ReqOp.WRITE, ReqFlags.FUA, 512, 512, buf, cb, 2);
        s.submit(ReqOp.WRITE, 0, 1024, 512, buf, cb, 3);
        s.finishPlug();
        assertThat(drv.held).hasSize(3);
        assertThat(q.merges()).isZero();
    }

    @Test
    void flagsAreChecked() {
        assertThatThrownBy(() -> ReqFlags.check(ReqOp.READ, ReqFlags.FUA)).hasMessageContaining("FUA");
        assertThatThrownBy(() -> ReqFlags.check(ReqOp.DISCARD, ReqFlags.PREFLUSH)).hasMessageContaining("PREFLUSH");
        assertThatThrownBy(() -> ReqFlags.check(ReqOp.WRITE, 8)).hasMessageContaining("unknown");
        ReqFlags.check(ReqOp.FLUSH, ReqFlags.PREFLUSH);
    }
}
