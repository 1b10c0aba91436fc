package io.hostwide.blk;

import io.hostwide.blk.exec.ManualKblockd;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Splitting bios to the queue limits (bio_split_to_limits): pieces, one parent completion, first error. */
class SplitTest {
    private static final long MS = 1_000_000L;
    private static final int MIB = 1 << 20;

    private final ManualKblockd kb = new ManualKblockd();
    private final HoldingDriver drv = new HoldingDriver();
    private final Counting cb = new Counting();
    private TagSet set;
    private RequestQueue q;

    private RequestQueue queue(int depth) {
        set = new TagSet(new TagSetConfig(1, depth, 0, 0, 0, 1), drv, kb);
        q = set.addQueue("q");
        return q;
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

    private List<Request> held() {
        return new ArrayList<>(drv.held);
    }

    @Test
    void aFourMebibyteBioOnA256KibDeviceBecomesSixteenRequestsThatCompleteItOnce() {
        queue(32).setMaxHwSectors(512);   // 256 KiB
        ByteBuffer buf = ByteBuffer.allocate(4 * MIB + 512).position(512);
        for (int i = 512; i < buf.capacity(); i += 4) {
            buf.putInt(i, i);
        }
        q.submitter(0).submit(ReqOp.WRITE, 8 * MIB, 4 * MIB, buf, cb, 77);
        List<Request> rqs = held();
        assertThat(rqs).hasSize(16);
        for (int i = 0; i < 16; i++) {
            Request rq = rqs.get(i);
            assertThat(rq.offset()).isEqualTo(8L * MIB + i * 256L * 1024);
            assertThat(rq.length()).isEqualTo(256 * 1024);
            ByteBuffer b = rq.buffer();
            // Each piece views the caller's buffer at its own place: no copy, no lost byte.
            assertThat(b.getInt(b.position())).isEqualTo(512 + i * 256 * 1024);
            assertThat(b.getInt(b.position() + 256 * 1024 - 4)).isEqualTo(512 + (i + 1) * 256 * 1024 - 4);
        }
        assertThat(buf.position()).as("the caller's position is never moved").isEqualTo(512);
        assertThat(q.splits()).isEqualTo(1);
        drv.completeAll(BlkStatus.OK);
        assertThat(cb.eachExactlyOnce(1)).isTrue();
        assertThat(cb.status(BlkStatus.OK)).isEqualTo(1);
    }

    @Test
    void anErrorInOnePieceFailsTheParentExactlyOnceWithTheFirstError() {
        queue(32).setMaxHwSectors(512);
        q.submitter(0).submit(ReqOp.READ, 0, 4 * MIB, ByteBuffer.allocate(4 * MIB), cb, 5);
        List<Request> rqs = held();
        drv.held.clear();
        for (int i = 0; i < rqs.size(); i++) {
            BlkStatus st = i == 3 ? BlkStatus.IOERR : i == 9 ? BlkStatus.TIMEOUT : BlkStatus.OK;
            rqs.get(i).complete(st);
            assertThat(cb.total.get()).as("no completion before the last piece").isEqualTo(i == rqs.size() - 1 ? 1 : 0);
        }
        assertThat(cb.eachExactlyOnce(1)).isTrue();
        assertThat(cb.status(BlkStatus.IOERR)).isEqualTo(1);
    }

    @Test
    void maxSegmentsTimesMaxSegmentSizeBoundsEachPiece() {
        queue(32);
        q.setMaxSegments(4);
        q.setMaxSegmentSize(64 * 1024);
        q.submitter(0).submit(ReqOp.WRITE, 0, MIB, ByteBuffer.allocate(MIB), cb, 1);
        assertThat(held()).hasSize(4).allSatisfy(rq -> assertThat(rq.length()).isEqualTo(256 * 1024));
        drv.completeAll(BlkStatus.OK);
        assertThat(cb.eachExactlyOnce(1)).isTrue();
    }

    @Test
    void piecesEndOnLogicalBlocksAndFitMaxSectors() {
        queue(32).setLogicalBlockSize(4096);
        q.setMaxSectors(10);   // 5 KiB, not a whole 4 KiB block twice: pieces of one block
        q.submitter(0).submit(ReqOp.READ, 0, 16 * 1024, ByteBuffer.allocate(16 * 1024), cb, 1);
        assertThat(held()).hasSize(4).allSatisfy(rq -> assertThat(rq.length()).isEqualTo(4096));
        drv.completeAll(BlkStatus.OK);
        assertThat(cb.eachExactlyOnce(1)).isTrue();
    }

    @Test
    void discardsSplitAtMaxDiscardSectorsOnGranularityBoundaries() {
        queue(32).setDiscardLimits(64, 8192);   // 32 KiB pieces, ends on 8 KiB
        q.submitter(0).submit(ReqOp.DISCARD, 4096, 100 * 1024, null, cb, 1);
        List<Request> rqs = held();
        assertThat(rqs).extracting(Request::offset).containsExactly(4096L, 32768L, 65536L, 98304L);
        assertThat(rqs).extracting(Request::length).containsExactly(28672, 32768, 32768, 8192);
        drv.completeAll(BlkStatus.OK);
        assertThat(cb.eachExactlyOnce(1)).isTrue();
        assertThatThrownBy(() -> q.setDiscardLimits(64, 1000)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void withinTheLimitsNothingIsSplitAndFlushesNeverAre() {
        queue(32).setMaxHwSectors(512);
        q.submitter(0).submit(ReqOp.WRITE, 0, 256 * 1024, ByteBuffer.allocate(256 * 1024), cb, 1);
        q.submitter(0).submit(ReqOp.FLUSH, 0, 0, null, cb, 2);
        assertThat(held()).hasSize(2);
        assertThat(q.splits()).isZero();
        drv.completeAll(BlkStatus.OK);
        assertThat(cb.eachExactlyOnce(2)).isTrue();
    }

    @Test
    void nowaitSplitReturnsFalseWhenNoPieceFitsAndAgainWhenALaterPieceDoesNot() {
        queue(4).setMaxHwSectors(8);   // 4 KiB pieces, 4 tags
        Submitter s = q.submitter(0);
        assertThat(s.trySubmit(ReqOp.WRITE, 0, 32 * 1024, ByteBuffer.allocate(32 * 1024), cb, 1)).isTrue();
        assertThat(held()).as("four pieces got tags, the fifth did not").hasSize(4);
        assertThat(s.trySubmit(ReqOp.WRITE, 64 * 1024, 8192, ByteBuffer.allocate(8192), cb, 2))
                .as("no tag for the first piece: nothing sent, no callback").isFalse();
        assertThat(cb.total.get()).isZero();
        drv.completeAll(BlkStatus.OK);
        assertThat(cb.eachExactlyOnce(1)).isTrue();
        assertThat(cb.status(BlkStatus.AGAIN)).isEqualTo(1);
    }

    @Test
    void limitsAreChecked() {
        queue(8).setMaxHwSectors(512);
        assertThatThrownBy(() -> q.setMaxSectorsKb(512)).hasMessageContaining("max_hw_sectors_kb");
        assertThatThrownBy(() -> q.setMaxSegmentSize(1024)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> q.setLogicalBlockSize(1000)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> q.setMaxHwSectors(4)).isInstanceOf(IllegalArgumentException.class);
        q.setMaxSectorsKb(128);
        assertThat(q.maxSectorsKb()).isEqualTo(128);
        assertThat(q.maxHwSectorsKb()).isEqualTo(256);
    }
}
