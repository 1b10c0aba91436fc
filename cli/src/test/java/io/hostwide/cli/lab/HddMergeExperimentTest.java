package io.hostwide.cli.lab;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class HddMergeExperimentTest {

    /**
     * With scheduler none the direction holds by construction: at queue_depth 255 the budget never runs out, so
     * every 4 KiB read is issued alone (no merge at all) to a disk that serves one command per seek; at 32 reads
     * wait in the software queues and merge. Throughput follows with a margin of several times, not a few
     * percent. mq-deadline's cells are only checked for having run: it also merges at 255 (requests arrive while
     * its asynchronous run is pending) and sorts interleaved streams into sequential runs, so which depth wins
     * there is not a property of the budget.
     */
    @Test
    void quickRunShowsBudgetDrivenMergingWithSchedulerNone() throws Exception {
        LabReport r = new HddMergeExperiment().run(LabTesting.quick());
        assertThat(r.interrupted).isFalse();
        assertThat(r.ours.rows()).hasSize(4);
        List<Object> none255 = r.ours.rows().get(0);
        List<Object> none32 = r.ours.rows().get(1);
        assertThat(none255.subList(0, 2)).containsExactly("none", 255);
        assertThat(none32.subList(0, 2)).containsExactly("none", 32);
        assertThat(LabTesting.number(none255, 5)).as("merges at 255, none").isZero();
        assertThat(LabTesting.number(none32, 5)).as("merges at 32, none").isPositive();
        assertThat(LabTesting.number(none32, 7)).as("KiB/command at 32").isGreaterThan(LabTesting.number(none255, 7));
        assertThat(LabTesting.number(none32, 2)).as("MB/s at 32").isGreaterThan(LabTesting.number(none255, 2));
        for (List<Object> row : r.ours.rows()) {
            assertThat(LabTesting.number(row, 2)).as("MB/s of %s", row).isPositive();
            assertThat(LabTesting.number(row, 4)).as("commands of %s", row).isPositive();
        }
        assertThat(r.shown).isTrue();
        assertThat(r.seed.rows()).hasSize(2);
    }
}
