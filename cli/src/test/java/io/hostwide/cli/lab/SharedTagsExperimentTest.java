package io.hostwide.cli.lab;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class SharedTagsExperimentTest {

    /**
     * No IOPS direction is asserted: the differences between tag depths, schedulers and queue layouts move with the
     * load on a 2-core machine (twelve job threads share two cores). Asserted: all 8 cells with positive IOPS,
     * host_tagset on exactly for 16 queues, each cell's latency bound min(tag depth, 12 x 32) / latency, and the
     * mechanism the seed is about, which no load changes: at depth 4000 no submitter ever sleeps for a tag; at 260
     * with none (384 wanted, a fair share of 22 per LUN) submitters sleep in tag allocation, while mq-deadline's
     * submitters take scheduler tags and their requests wait in the scheduler instead.
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
            double sleeps = LabTesting.number(row, 9);
            if (depth == 4000 || "mq-deadline".equals(row.get(2))) {
                assertThat(sleeps).as("tag sleeps/IO of %s", row).isZero();
            } else {
                assertThat(sleeps).as("tag sleeps/IO of %s", row).isPositive();
            }
        }
        assertThat(r.shown).isNotNull();
        assertThat(r.seed.rows()).hasSize(6);
    }
}
