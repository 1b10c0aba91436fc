package io.hostwide.iscsi.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** STYLE.md 19, issue 12 item 3: a pool keeps at most its bound of free buffers and reuses them before allocating. */
class BufferPoolTest {
    @Test
    void keepsAtMostItsBoundAndReusesBeforeAllocating() {
        BufferPool pool = new BufferPool(4096, 2);
        ByteBuffer a = pool.take();
        ByteBuffer b = pool.take();
        ByteBuffer c = pool.take();
        assertThat(pool.created()).isEqualTo(3);
        pool.give(a);
        pool.give(b);
        pool.give(c); // beyond the bound: dropped, for the collector
        assertThat(pool.pooled()).isEqualTo(2);
        ByteBuffer first = pool.take();
        ByteBuffer second = pool.take();
        assertThat(first == a || first == b).as("a pooled buffer, not a new one").isTrue();
        assertThat(second == a || second == b).isTrue();
        assertThat(pool.created()).as("reused, not allocated").isEqualTo(3);
        ByteBuffer fresh = pool.take();
        assertThat(fresh != a && fresh != b && fresh != c).as("c was dropped, not kept").isTrue();
        assertThat(pool.created()).isEqualTo(4);
    }

    @Test
    void aReusedBufferComesBackCleared() {
        BufferPool pool = new BufferPool(4096, 1);
        ByteBuffer a = pool.take();
        a.put(new byte[100]).limit(200);
        pool.give(a);
        ByteBuffer again = pool.take();
        assertThat(again).isSameAs(a);
        assertThat(again.position()).isZero();
        assertThat(again.limit()).isEqualTo(4096);
    }

    @Test
    void aBufferOfAnotherSizeIsNotKept() {
        BufferPool pool = new BufferPool(4096, 4);
        pool.give(ByteBuffer.allocateDirect(8192));
        pool.give(null);
        assertThat(pool.pooled()).isZero();
    }
}
