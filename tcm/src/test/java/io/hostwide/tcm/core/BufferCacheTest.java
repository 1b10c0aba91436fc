package io.hostwide.tcm.core;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A command's Data-In buffer retired because storage may still write into it (an RBD read that librbd fills in place,
 * answered by the watchdog first): never handed out again, neither the command's own nor a shared large one.
 */
class BufferCacheTest {
    private static final int MIB = 1 << 20;

    @Test
    void aRetiredDataInBufferIsNeverHandedOutAgain() {
        BufferCache c = new BufferCache(new LargeBuffers(64L * MIB));
        ByteBuffer small = c.in(4096);
        assertThat(c.in(4096)).as("kept and reused").isSameAs(small);
        c.retireIn();
        ByteBuffer next = c.in(4096);
        assertThat(next).isNotSameAs(small);
        assertThat(c.in(4096)).isSameAs(next);
    }

    @Test
    void aRetiredLargeBufferIsNotGivenBackToTheSharedOnes() {
        LargeBuffers shared = new LargeBuffers(64L * MIB);
        BufferCache c = new BufferCache(shared);
        ByteBuffer small = c.in(4096);
        ByteBuffer large = c.in(MIB);
        c.retireIn(); // the large one, the last handed out
        c.giveBack();
        assertThat(shared.take(MIB)).isNotSameAs(large);
        assertThat(c.in(4096)).as("the small one stays").isSameAs(small);
        ByteBuffer large2 = c.in(MIB);
        assertThat(large2).isNotSameAs(large);
    }
}
