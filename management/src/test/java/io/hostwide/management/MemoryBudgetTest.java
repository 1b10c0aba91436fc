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
    void ramBackstoresThatCannotBeWrittenFullWithinTheHeapAreAWarning() {
        MemoryBudget b = MemoryBudget.of(1024 * MIB); // heap 768 MiB, of which 96 are not for pages
        assertThat(b.warnings(672 * MIB)).isEmpty();
        List<String> w = b.warnings(1L << 30);
        assertThat(w).singleElement().asString().contains("RAM backstores total 1.00 GiB")
                .contains("leaves about 672 MiB").contains("INTERNAL TARGET FAILURE")
                .contains("raise --memory to about " + MemoryBudget.suggest(1L << 30) + "m");
        MemoryBudget suggested = MemoryBudget.of(MemoryBudget.suggest(1L << 30) * MIB);
        assertThat(suggested.warnings(1L << 30)).as("the suggestion is enough").isEmpty();
    }

}
