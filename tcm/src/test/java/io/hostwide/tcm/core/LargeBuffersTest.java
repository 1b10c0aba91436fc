package io.hostwide.tcm.core;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shared pool of large command buffers (issue 13: a 1 MiB READ or WRITE allocated and zeroed a fresh direct buffer
 * every time): reused, never shared between two commands at once, and bounded.
 */
class LargeBuffersTest {
    private static final int MIB = 1 << 20;

    /** By identity: ByteBuffer.equals compares contents, and every fresh buffer holds zeros. */
    private static boolean oneOf(ByteBuffer x, ByteBuffer... candidates) {
        for (ByteBuffer c : candidates) {
            if (c == x) {
                return true;
            }
        }
        return false;
    }

    @Test
    void aBufferGivenBackIsTheNextOneTakenOfItsClass() {
        LargeBuffers p = new LargeBuffers(64L * MIB);
        ByteBuffer a = p.take(MIB - 512);
        assertThat(a.isDirect()).isTrue();
        assertThat(a.capacity()).isEqualTo(MIB);
        p.give(a);
        assertThat(p.pooledBytes()).isEqualTo(MIB);
        assertThat(p.take(MIB)).isSameAs(a);
        assertThat(p.pooledBytes()).isZero();
        assertThat(p.take(2 * MIB)).isNotSameAs(a).satisfies(b -> assertThat(b.capacity()).isEqualTo(2 * MIB));
    }

    @Test
    void idleBuffersBeyondTheBoundAreDropped() {
        LargeBuffers p = new LargeBuffers(2L * MIB);
        ByteBuffer a = p.take(MIB);
        ByteBuffer b = p.take(MIB);
        ByteBuffer c = p.take(MIB);
        p.give(a);
        p.give(b);
        p.give(c);
        assertThat(p.pooledBytes()).isEqualTo(2L * MIB);
        assertThat(oneOf(p.take(MIB), a, b)).isTrue();
        assertThat(oneOf(p.take(MIB), a, b)).isTrue();
        assertThat(oneOf(p.take(MIB), a, b, c)).isFalse();
    }

    @Test
    void requestsAboveTheLargestClassAreOneOffs() {
        LargeBuffers p = new LargeBuffers(64L * MIB);
        ByteBuffer huge = p.take(LargeBuffers.MAX_CLASS + 1);
        assertThat(huge.capacity()).isEqualTo(LargeBuffers.MAX_CLASS + 1);
        p.give(huge);
        assertThat(p.pooledBytes()).isZero();
    }

    @Test
    void aCommandKeepsItsLargeBuffersUntilItGivesThemBackAndNeverSharesThem() {
        LargeBuffers p = new LargeBuffers(64L * MIB);
        BufferCache one = new BufferCache(p);
        BufferCache two = new BufferCache(p);
        ByteBuffer in1 = one.in(MIB);
        ByteBuffer out1 = one.out(MIB);
        ByteBuffer in2 = two.in(MIB);
        assertThat(in1).isNotSameAs(out1).isNotSameAs(in2);
        assertThat(one.in(MIB / 2 + 1)).isSameAs(in1); // a second request of the same use fits the first buffer
        assertThat(in1.limit()).isEqualTo(MIB / 2 + 1);
        one.giveBack();
        assertThat(p.pooledBytes()).isEqualTo(2L * MIB);
        ByteBuffer again = two.out(MIB);
        assertThat(oneOf(again, in1, out1)).isTrue();
        two.giveBack();
        assertThat(p.pooledBytes()).isEqualTo(3L * MIB);
    }

    @Test
    void smallBuffersStayWithTheirCommand() {
        LargeBuffers p = new LargeBuffers(64L * MIB);
        BufferCache c = new BufferCache(p);
        ByteBuffer small = c.in(BufferCache.RETAIN_LIMIT);
        c.giveBack();
        assertThat(p.pooledBytes()).isZero();
        assertThat(c.in(4096)).isSameAs(small);
    }
}
