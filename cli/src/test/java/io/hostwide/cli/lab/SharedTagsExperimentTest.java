package io.hostwide.cli.lab;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class SharedTagsExperimentTest {

    /**
     * Only completeness is asserted: the IOPS differences between tag depths, schedulers and queue layouts are
     * noise-level on a loaded 2-core machine (twelve job threads share two cores), so no direction is checked.
     * The table must have all 8 cells with positive IOPS, and host_tagset must be on exactly for 16 queues.
     */
    @Test
    void quickRunFillsEveryCell() throws Exception {
        LabReport r = new SharedTagsExperiment().run(LabTesting.quick());
        assertThat(r.interrupted).isFalse();
        assertThat(r.ours.rows()).hasSize(8);
        for (List<Object> row : r.ours.rows()) {
            int hwQueues = (Integer) row.get(0);
            assertThat(row.get(1)).as("host_tagset of %s", row).isEqualTo(hwQueues == 16 ? 1 : 0);
            assertThat(LabTesting.number(row, 4)).as("KIOPS of %s", row).isPositive();
        }
        assertThat(r.shown).isNotNull();
        assertThat(r.seed.rows()).hasSize(6);
    }
}
