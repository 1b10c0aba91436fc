package io.hostwide.tcm.backstore.rbd;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The provisioning run GET LBA STATUS reports on RBD, from the extents rbd_diff_iterate2 gives (SBC-4 §5.8). */
class AllocatedExtentsTest {
    private static final int BS = 512;

    @Test
    void nothingWrittenIsOneDeallocatedRunToTheLimit() {
        assertThat(new AllocatedExtents().run(BS, 10, 1000)).isEqualTo(-990);
    }

    @Test
    void aGapBeforeTheFirstExtentIsDeallocatedUpToIt() {
        AllocatedExtents e = new AllocatedExtents();
        e.add(100L * BS, 8L * BS);
        assertThat(e.run(BS, 0, 1000)).isEqualTo(-100);
        assertThat(e.run(BS, 100, 1000)).isEqualTo(8);
        assertThat(e.run(BS, 104, 1000)).as("from inside the extent").isEqualTo(4);
        assertThat(e.run(BS, 108, 1000)).isEqualTo(-892);
    }

    @Test
    void extentsInAnyOrderThatTouchOrOverlapMakeOneMappedRun() {
        AllocatedExtents e = new AllocatedExtents();
        e.add(20L * BS, 10L * BS);
        e.add(0, 10L * BS);
        e.add(10L * BS, 5L * BS); // touches both: 0..30
        e.add(25L * BS, 10L * BS); // overlaps: to 35
        e.add(40L * BS, BS);
        assertThat(e.run(BS, 0, 100)).isEqualTo(15);
        assertThat(e.run(BS, 15, 100)).isEqualTo(-5);
        assertThat(e.run(BS, 20, 100)).isEqualTo(15);
        assertThat(e.run(BS, 35, 100)).isEqualTo(-5);
        assertThat(e.run(BS, 40, 100)).isEqualTo(1);
    }

    @Test
    void aBlockWithAnyByteOfDataIsMapped() {
        AllocatedExtents e = new AllocatedExtents();
        e.add(5L * BS + 511, 2); // the last byte of block 5 and the first of block 6
        assertThat(e.run(BS, 0, 100)).isEqualTo(-5);
        assertThat(e.run(BS, 5, 100)).isEqualTo(2);
        assertThat(e.run(BS, 7, 100)).isEqualTo(-93);
    }

    @Test
    void runsStopAtTheLimitAndIgnoreExtentsOutsideIt() {
        AllocatedExtents e = new AllocatedExtents();
        e.add(0, 100L * BS);
        e.add(200L * BS, 0); // empty
        assertThat(e.run(BS, 50, 60)).isEqualTo(10);
        assertThat(e.run(BS, 100, 200)).isEqualTo(-100);
        assertThat(e.run(4096, 0, 1)).isEqualTo(1);
    }

    @Test
    void manyExtentsGrowTheStore() {
        AllocatedExtents e = new AllocatedExtents();
        for (int i = 999; i >= 0; i--) {
            e.add(2L * i * BS, BS); // every other block
        }
        assertThat(e.run(BS, 0, 2000)).isEqualTo(1);
        assertThat(e.run(BS, 1, 2000)).isEqualTo(-1);
        assertThat(e.run(BS, 1998, 2000)).isEqualTo(1);
        assertThat(e.run(BS, 1999, 2000)).isEqualTo(-1);
    }
}
