package io.hostwide.management;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Issue 12 item 3: what --memory means, and that serve refuses a JVM that does not enforce it. */
class MemoryBudgetTest {
    private static final long MIB = 1L << 20;

    @Test
    void aQuarterIsDirectMemoryAtLeast64MiBAndTheRestHeap() {
        assertThat(MemoryBudget.of(2048 * MIB)).isEqualTo(new MemoryBudget(2048, 1536, 512));
        assertThat(MemoryBudget.of(1024 * MIB)).isEqualTo(new MemoryBudget(1024, 768, 256));
        assertThat(MemoryBudget.of(256 * MIB)).isEqualTo(new MemoryBudget(256, 192, 64));
        assertThat(MemoryBudget.of(300 * MIB)).isEqualTo(new MemoryBudget(300, 225, 75));
        assertThat(MemoryBudget.of(1000 * MIB + 12345)).as("whole MiB").isEqualTo(new MemoryBudget(1000, 750, 250));
        assertThat(MemoryBudget.of(1024 * MIB).jvmOptions())
                .containsExactly("-Xmx768m", "-XX:MaxDirectMemorySize=256m", "-Dhostwide.memory=1024m");
    }

    @Test
    void belowTheMinimumIsRefusedWithTheMinimum() {
        assertThatThrownBy(() -> MemoryBudget.of(255 * MIB)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("--memory: ").hasMessageContaining("minimum 256m");
    }

    @Test
    void aJvmWithOtherLimitsIsAMismatchThatNamesTheOptions() {
        MemoryBudget b = MemoryBudget.of(1024 * MIB);
        assertThat(b.mismatch(new MemoryBudget.Limits(768 * MIB, 256 * MIB))).isNull();
        assertThat(b.mismatch(new MemoryBudget.Limits(770 * MIB, 256 * MIB))).as("heap alignment").isNull();
        assertThat(b.mismatch(new MemoryBudget.Limits(6L << 30, 0)))
                .contains("--memory 1024m means a heap of 768 MiB and 256 MiB of direct memory")
                .contains("heap of at most 6.00 GiB and no direct-memory limit of its own")
                .endsWith("-Xmx768m -XX:MaxDirectMemorySize=256m -Dhostwide.memory=1024m");
        assertThat(b.mismatch(new MemoryBudget.Limits(768 * MIB, 0))).as("direct unlimited").isNotNull();
        assertThat(b.mismatch(new MemoryBudget.Limits(768 * MIB, 512 * MIB))).contains("512 MiB of direct memory");
    }

    @Test
    void ramBackstoresThatCannotBeWrittenFullWithinTheRamBudgetAreAWarning() {
        MemoryBudget b = MemoryBudget.of(1024 * MIB); // heap 768 MiB, a default RAM budget of half that
        assertThat(b.warnings(384 * MIB, null, 1.0)).isEmpty();
        List<String> w = b.warnings(1L << 30, null, 1.0);
        assertThat(w).singleElement().asString().contains("RAM backstores total 1.00 GiB")
                .contains("the RAM budget is 384 MiB (the default for --memory 1024m, of its 768 MiB heap)")
                .contains("SPACE ALLOCATION FAILED WRITE PROTECT until UNMAP frees pages")
                .contains("raise --memory to about " + MemoryBudget.suggest(1L << 30, 1.0) + "m");
        assertThat(b.warnings(1L << 50, null, 1.0)).singleElement().asString()
                .endsWith("until UNMAP frees pages (more than this machine's memory could hold)");
        assertThat(b.warnings(600 * MIB, 512 * MIB, 1.0)).singleElement().asString()
                .contains("the RAM budget is 512 MiB (limits.ram_budget)");
    }

    /** ParallelGC's old generation is two thirds of the heap: small heaps get less than half for pages. */
    @Test
    void theDefaultBudgetFitsTheOldGenerationAndSuggestionsAreEnough() {
        double parallel = 2.0 / 3;
        MemoryBudget small = MemoryBudget.of(512 * MIB); // heap 384 MiB, old generation 256 MiB
        assertThat(small.warnings(160 * MIB, null, parallel)).isEmpty();
        assertThat(small.warnings(161 * MIB, null, parallel)).singleElement().asString()
                .contains("the RAM budget is 160 MiB");
        for (double share : new double[] {parallel, 1.0}) {
            for (long ram : new long[] {1, 64 * MIB, 100 * MIB, 1L << 30, 3L << 30}) {
                MemoryBudget suggested = MemoryBudget.of(MemoryBudget.suggest(ram, share) * MIB);
                assertThat(suggested.warnings(ram, null, share)).as("suggestion for %d at %.2f", ram, share)
                        .isEmpty();
            }
        }
    }

}
