package io.hostwide.sbitmap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The plain {@link Sbitmap}: deferred clear, direct bit operations and iteration. */
class SbitmapTest {

    @Test
    void aFreeIsDeferredUntilTheWordRunsDry() {
        Sbitmap sb = new Sbitmap(SbitmapConfig.of(32, 1)); // 4 words of 8
        List<Integer> held = new ArrayList<>();
        for (int bit; (bit = sb.get(0)) >= 0; ) {
            held.add(bit);
        }
        assertThat(held).hasSize(32);
        sb.put(held.get(0), 0);
        sb.put(held.get(1), 0);
        assertThat(sb.clearedCount()).isEqualTo(2);
        assertThat(sb.weight()).isEqualTo(30);
        assertThat(sb.testBit(held.get(0))).isFalse();
        int again = sb.get(0); // word full: folds cleared back, then claims
        assertThat(again).isIn(held.get(0), held.get(1));
        assertThat(sb.clearedCount()).isZero();
        assertThat(sb.weight()).isEqualTo(31);
    }

    @Test
    void resizeFoldsDeferredClears() {
        Sbitmap sb = new Sbitmap(SbitmapConfig.of(16, 1).withCapacity(64));
        int bit = sb.get(0);
        sb.put(bit, 0);
        assertThat(sb.clearedCount()).isEqualTo(1);
        sb.resize(64);
        assertThat(sb.clearedCount()).isZero();
        assertThat(sb.weight()).isZero();
        assertThat(sb.mapNr()).isEqualTo(16); // shift stays that of the initial depth (4 bits/word)
    }

    @Test
    void directBitOperationsServeACtxMap() {
        Sbitmap ctxMap = new Sbitmap(new SbitmapConfig(20, 20, 3, false, 1)); // blk-mq ctx_map: 8 bits/word
        assertThat(ctxMap.setBit(3)).isFalse();
        assertThat(ctxMap.setBit(3)).isTrue();
        assertThat(ctxMap.setBit(17)).isFalse();
        assertThat(ctxMap.testBit(3)).isTrue();
        assertThat(ctxMap.weight()).isEqualTo(2);
        assertThat(ctxMap.clearBit(3)).isTrue();
        assertThat(ctxMap.clearBit(3)).isFalse();
        assertThat(ctxMap.testBit(3)).isFalse();
        assertThatThrownBy(() -> ctxMap.setBit(20)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void forEachSetWalksOnceRoundFromTheStartAndCanStop() {
        Sbitmap sb = new Sbitmap(new SbitmapConfig(40, 40, 3, false, 1));
        for (int b : new int[] {1, 9, 10, 22, 39}) {
            sb.setBit(b);
        }
        List<Integer> seen = new ArrayList<>();
        sb.forEachSet(10, b -> seen.add(b));
        assertThat(seen).containsExactly(10, 22, 39, 1, 9);
        seen.clear();
        sb.forEachSet(0, b -> seen.add(b));
        assertThat(seen).containsExactly(1, 9, 10, 22, 39);
        seen.clear();
        sb.forEachSet(11, b -> {
            seen.add(b);
            return seen.size() < 2;
        });
        assertThat(seen).containsExactly(22, 39);
    }

    @Test
    void perSlotHintsStartOnDifferentWords() {
        Sbitmap sb = new Sbitmap(SbitmapConfig.of(256, 4)); // 4 words of 64
        for (int slot = 0; slot < 4; slot++) {
            assertThat(sb.allocHint(slot) >>> 6).isEqualTo(slot);
            assertThat(sb.get(slot) >>> 6).isEqualTo(slot);
        }
    }

    @Test
    void aFreeSetsTheFreersHintSoTheTagIsReusedHot() {
        Sbitmap sb = new Sbitmap(SbitmapConfig.of(64, 2));
        int a = sb.get(0);
        sb.put(a, 1);
        assertThat(sb.allocHint(1)).isEqualTo(a);
        Sbitmap rr = new Sbitmap(SbitmapConfig.of(64, 2).withRoundRobin(true));
        int b = rr.get(0);
        int hint = rr.allocHint(1);
        rr.put(b, 1);
        assertThat(rr.allocHint(1)).isEqualTo(hint); // round robin never moves a hint back
    }
}
