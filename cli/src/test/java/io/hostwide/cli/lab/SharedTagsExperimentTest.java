package io.hostwide.cli.lab;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class SharedTagsExperimentTest {

    /**
     * Only completeness and arithmetic are asserted: the IOPS differences between tag depths, schedulers and queue
     * layouts move with the load on a 2-core machine (twelve job threads share two cores), so no direction is
     * checked. The table must have all 8 cells with positive IOPS, host_tagset must be on exactly for 16 queues,
     * and each cell's latency bound must be min(tag depth, 12 x 32) / latency.
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
            int depth = (Integer) row.get(3);
            double latencySeconds = new SharedTagsExperiment().defaultNdelayNanos() / 1e9;
            assertThat(LabTesting.number(row, 5)).as("bound KIOPS of %s", row)
                    .isCloseTo(Math.min(depth, 384) / latencySeconds / 1e3, within(1e-6));
        }
        assertThat(r.shown).isNotNull();
        assertThat(r.seed.rows()).hasSize(6);
    }
}
