package io.hostwide.cli.lab;

import io.hostwide.blk.SharedTagModes;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class FairShareExperimentTest {

    /**
     * Not asserted: IOPS or CPU per I/O between the cases (CPU-bound on 2 shared cores: they move with the load).
     * Asserted: every case ran and moved data, and each case's completion-run switch did what it says: all hctxs
     * (8 per completion) in the RFC's mode, only the completing one with change 2, none in upstream's default.
     */
    @Test
    void quickRunFillsEveryCaseAndTheCompletionRunsFollowTheSwitch() throws Exception {
        LabReport r = new FairShareExperiment().run(LabTesting.quick());
        assertThat(r.interrupted).isFalse();
        List<FairShareExperiment.Case> cases = FairShareExperiment.cases();
        assertThat(r.ours.rows()).hasSize(cases.size());
        for (int i = 0; i < cases.size(); i++) {
            List<Object> row = r.ours.rows().get(i);
            int modes = cases.get(i).modes();
            assertThat(row.get(2)).isEqualTo(SharedTagModes.decode(modes));
            assertThat(LabTesting.number(row, 4)).as("KIOPS of %s", row.get(0)).isPositive();
            double runsPerIo = LabTesting.number(row, 6);
            boolean shared = cases.get(i).hwQueues() > 1;
            if ((modes & SharedTagModes.RUN_ALL_HCTX_ON_COMPLETION) != 0 && shared) {
                assertThat(runsPerIo).as("runs/IO of %s", row.get(0)).isGreaterThan(7.0);
            } else if ((modes & SharedTagModes.RUN_COMPLETING_HCTX_ON_COMPLETION) != 0) {
                assertThat(runsPerIo).as("runs/IO of %s", row.get(0)).isBetween(0.9, 1.1);
            } else {
                assertThat(runsPerIo).as("runs/IO of %s", row.get(0)).isZero();
            }
        }
        assertThat(r.shown).isNotNull();
        assertThat(r.seed.rows()).hasSize(4);
    }
}
