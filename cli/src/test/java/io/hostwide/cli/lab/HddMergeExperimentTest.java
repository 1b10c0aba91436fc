package io.hostwide.cli.lab;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class HddMergeExperimentTest {

    /**
     * Not asserted: which queue_depth merges more per I/O or reads faster. On this emulation requests also merge
     * at queue_depth 255 (submitters outrun the dispatcher on 2 cores, and merged completions return in bursts
     * that are re-issued back to back), so the per-I/O difference is small and flips between runs on a loaded
     * machine. Asserted: both cells ran, moved data, and merged sequential reads; the budget held at 32.
     */
    @Test
    void quickRunFillsBothCellsAndMerges() throws Exception {
        LabReport r = new HddMergeExperiment().run(LabTesting.quick());
        assertThat(r.interrupted).isFalse();
        assertThat(r.ours.rows()).hasSize(2);
        List<Object> qd255 = r.ours.rows().get(0);
        List<Object> qd32 = r.ours.rows().get(1);
        assertThat(qd255.get(0)).isEqualTo(255);
        assertThat(qd32.get(0)).isEqualTo(32);
        for (List<Object> row : r.ours.rows()) {
            assertThat(LabTesting.number(row, 1)).as("MB/s").isPositive();
            assertThat(LabTesting.number(row, 3)).as("commands").isPositive();
            assertThat(LabTesting.number(row, 4)).as("merges").isPositive();
            // A merged command carries more than one 4 KiB read.
            assertThat(LabTesting.number(row, 6)).as("KiB/command").isGreaterThan(4.0);
        }
        assertThat(r.shown).isNotNull();
        assertThat(r.seed.rows()).hasSize(2);
    }
}
