package io.hostwide.sbitmap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The sizing rules of digest §1.2 (shift), §1.5 (shallow split) and §1.6 (wake batch). */
class SbitmapMathTest {

    @ParameterizedTest(name = "depth {0} -> {1} bits/word, {2} words")
    @CsvSource({
        // the digest's worked examples
        "32, 8, 4", "64, 16, 4", "256, 64, 4", "1024, 64, 16",
        // below 4 the rule does not shrink the word
        "0, 64, 0", "1, 64, 1", "3, 64, 1",
        "4, 1, 4", "7, 1, 7", "8, 2, 4", "16, 4, 4", "100, 16, 7", "128, 32, 4", "260, 64, 5", "4000, 64, 63",
    })
    void defaultShiftSpreadsSmallMapsOverFourWordsAndCapsWordsAt64Bits(int depth, int bitsPerWord, int words) {
        int shift = SbitmapMath.defaultShift(depth);
        assertThat(1 << shift).isEqualTo(bitsPerWord);
        assertThat(SbitmapMath.mapNr(depth, shift)).isEqualTo(words);
        SbitmapQueue q = new ShardedSbitmapQueue(SbitmapConfig.of(depth, 1));
        assertThat(q.dump().bitsPerWord()).isEqualTo(bitsPerWord);
        assertThat(q.dump().mapNr()).isEqualTo(words);
    }

    @Test
    void theLastWordIsPartial() {
        assertThat(SbitmapMath.wordDepth(100, 4, 5)).isEqualTo(16);
        assertThat(SbitmapMath.wordDepth(100, 4, 6)).isEqualTo(4);
        assertThat(SbitmapMath.wordDepth(100, 4, 7)).isZero();
    }

    @ParameterizedTest(name = "depth {0}, min_shallow {1} -> batch {2}")
    @CsvSource({
        "0, 2147483647, 1", "1, 2147483647, 1", "15, 2147483647, 1", "16, 2147483647, 2", "63, 2147483647, 7",
        "64, 2147483647, 8", "4000, 2147483647, 8", "256, 16, 2", "256, 1, 1", "256, 100, 8", "40, 64, 5",
    })
    void wakeBatchIsAnEighthOfTheSmallerOfDepthAndMinShallowClampedTo1To8(int depth, int minShallow, int batch) {
        assertThat(SbitmapMath.wakeBatch(depth, minShallow)).isEqualTo(batch);
    }

    @ParameterizedTest(name = "depth {0}, users {1} -> batch {2}")
    @CsvSource({
        "64, 1, 8", "64, 4, 2", "64, 16, 1", "64, 64, 1", "256, 2, 8", "260, 3, 8", "100, 3, 4",
        "4000, 64, 7", "4000, 8, 8", "17, 2, 1",
    })
    void recalculatedBatchUsesTheCeilingOfTheFairShare(int depth, int users, int batch) {
        assertThat(SbitmapMath.wakeBatchForUsers(depth, users)).isEqualTo(batch);
        SbitmapQueue q = new ShardedSbitmapQueue(SbitmapConfig.of(depth, 1));
        q.recalculateWakeBatch(users);
        assertThat(q.wakeBatch()).isEqualTo(batch);
    }

    @Test
    void aUserCountBelowOneIsRejected() {
        assertThatThrownBy(() -> SbitmapMath.wakeBatchForUsers(64, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Property
    void shallowSharesAddUpToTheBudgetAndStayWithinEachWord(
            @ForAll @IntRange(min = 1, max = 5000) int depth, @ForAll @IntRange(min = 1, max = 6000) int shallow) {
        int shift = SbitmapMath.defaultShift(depth);
        int words = SbitmapMath.mapNr(depth, shift);
        int sum = 0;
        for (int i = 0; i < words; i++) {
            int share = SbitmapMath.shallowWordDepth(depth, shift, i, shallow);
            assertThat(share).isBetween(0, SbitmapMath.wordDepth(depth, shift, i));
            sum += share;
        }
        assertThat(sum).isEqualTo(Math.min(depth, shallow));
    }

    @Property
    void randomHintsStayInRangeAndSpreadConsecutiveSlotsOverWords(
            @ForAll @IntRange(min = 1, max = 5000) int depth, @ForAll @IntRange(min = 1, max = 64) int nrHints) {
        int shift = SbitmapMath.defaultShift(depth);
        int words = SbitmapMath.mapNr(depth, shift);
        for (int slot = 0; slot < nrHints; slot++) {
            int hint = SbitmapMath.randomHint(slot, depth, shift);
            assertThat(hint).isBetween(0, depth - 1);
            assertThat(hint >>> shift).isEqualTo(slot % words);
        }
    }

    @Test
    void hintMovesOnAfterAHintedHitOrInRoundRobinAndResetsOnFailure() {
        assertThat(SbitmapMath.hintAfterGet(5, -1, 64, false)).isZero();
        assertThat(SbitmapMath.hintAfterGet(5, 5, 64, false)).isEqualTo(6);
        assertThat(SbitmapMath.hintAfterGet(5, 9, 64, false)).isEqualTo(5);
        assertThat(SbitmapMath.hintAfterGet(5, 9, 64, true)).isEqualTo(10);
        assertThat(SbitmapMath.hintAfterGet(63, 63, 64, false)).isZero();
    }
}
