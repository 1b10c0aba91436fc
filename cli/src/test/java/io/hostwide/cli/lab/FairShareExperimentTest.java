package io.hostwide.cli.lab;

import io.hostwide.blk.SharedTagModes;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class FairShareExperimentTest {

    /**
     * Not asserted: IOPS or CPU per I/O between the cases (CPU-bound on 2 shared cores: they move with the load).
     * Asserted: every case ran and moved data (KIOPS above zero, a liveness check, not a speed), each case's
     * completion-run switch did what it says (all hctxs, 8 per completion, in the RFC's mode, only the completing
     * one with change 2, none in upstream's default), and change 1's effect on the fair-share users: with
     * per-hctx accounting every hctx a migrating job touched is a tag user (up to 8 LUNs x 8 hctxs = 64), with
     * per-queue accounting each LUN is one (8), so the tag users go from many to the few.
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
            int users = (int) LabTesting.number(row, 7);
            if ((modes & SharedTagModes.OUTSTANDING_PER_HCTX) != 0 && shared) {
                assertThat(users).as("tag users (hctxs) of %s", row.get(0))
                        .isGreaterThan(FairShareExperiment.LUNS)
                        .isLessThanOrEqualTo(FairShareExperiment.LUNS * FairShareExperiment.HW_QUEUES);
            } else {
                assertThat(users).as("tag users (queues) of %s", row.get(0)).isBetween(1, FairShareExperiment.LUNS);
            }
        }
        int rfcUsers = (int) LabTesting.number(r.ours.rows().get(1), 7);
        int change1Users = (int) LabTesting.number(r.ours.rows().get(2), 7);
        assertThat(change1Users).as("change 1: tag users go from many (RFC v6: %d) to few", rfcUsers)
                .isLessThan(rfcUsers);
        assertThat(r.verdict).as("verdict on a complete table").isNotNull();
        assertThat(r.seed.rows()).hasSize(4);
    }

    private static Medians table(double oneQueue, double rfc, double allThree) {
        return Medians.builder()
                .cell(FairShareExperiment.oneQueue(), FairShareExperiment.KIOPS, oneQueue)
                .cell(FairShareExperiment.rfc(), FairShareExperiment.KIOPS, rfc)
                .cell(FairShareExperiment.allThree(), FairShareExperiment.KIOPS, allThree)
                .build();
    }

    @Test
    void verdictIsYesForTheSeedsShapeNoForItsInverseAndInconclusiveWithinTheMargin() {
        Verdict yes = FairShareExperiment.verdict(table(10.03, 2.86, 10.06));   // the README's medians
        assertThat(yes.clauses()).extracting(Verdict.Clause::claim).isEqualTo(FairShareExperiment.expectation());
        assertThat(yes.clauses()).extracting(Verdict.Clause::outcome).containsOnly(Verdict.Outcome.YES);

        Verdict inverted = FairShareExperiment.verdict(table(2.86, 10.03, 2.86));
        assertThat(inverted.clauses()).extracting(Verdict.Clause::outcome).containsOnly(Verdict.Outcome.NO);
        assertThat(inverted.outcome()).isEqualTo(Verdict.Outcome.NO);

        Verdict noise = FairShareExperiment.verdict(table(10.0, 9.5, 10.2));
        assertThat(noise.clauses()).extracting(Verdict.Clause::outcome).containsOnly(Verdict.Outcome.INCONCLUSIVE);
        assertThat(noise.outcome()).isEqualTo(Verdict.Outcome.INCONCLUSIVE);
    }
}
