package io.hostwide.cli.lab;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class HddMergeExperimentTest {

    /**
     * Counts only, never throughput (speed is the benchmarks' business): with scheduler none the direction holds by
     * construction. At queue_depth 255 the budget never runs out, so every 4 KiB read is issued alone (no merge at
     * all); at 32 reads wait in the software queues and merge, so the budget-limited run merges more and sends
     * bigger commands. mq-deadline's cells are only checked for having issued commands: it also merges at 255
     * (requests arrive while its asynchronous run is pending), so which depth merges more there is not a property
     * of the budget. The verdict is rendered but not asserted: it also weighs MB/s.
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
        assertThat(LabTesting.number(none32, 5)).as("merges at 32, none: the budget-limited run merges more")
                .isGreaterThan(LabTesting.number(none255, 5));
        assertThat(LabTesting.number(none32, 6)).as("merges/IO at 32 vs 255, none")
                .isGreaterThan(LabTesting.number(none255, 6));
        assertThat(LabTesting.number(none32, 7)).as("KiB/command at 32 vs 255, none")
                .isGreaterThan(LabTesting.number(none255, 7));
        assertThat(LabTesting.number(none255, 7)).as("KiB/command at 255, none: one read per command").isEqualTo(4.0);
        for (List<Object> row : r.ours.rows()) {
            assertThat(LabTesting.number(row, 4)).as("commands of %s", row).isPositive();
        }
        assertThat(r.verdict).as("verdict rendered for a complete table").isNotNull();
        assertThat(r.seed.rows()).hasSize(2);
    }

    /** The verdict on synthetic tables: MB/s and KiB/command for scheduler none (the README's figures for yes). */
    private static Medians table(double mbs255, double kib255, double mbs32, double kib32) {
        return Medians.builder()
                .cell(HddMergeExperiment.cell("none", 255), HddMergeExperiment.MBS, mbs255,
                        HddMergeExperiment.KIB_PER_COMMAND, kib255)
                .cell(HddMergeExperiment.cell("none", 32), HddMergeExperiment.MBS, mbs32,
                        HddMergeExperiment.KIB_PER_COMMAND, kib32)
                .build();
    }

    @Test
    void verdictIsYesForTheSeedsShapeNoForItsInverseAndInconclusiveWithinTheMargin() {
        Verdict yes = HddMergeExperiment.verdict(table(30.3, 4.0, 69.2, 15.3));
        assertThat(yes.clauses()).extracting(Verdict.Clause::claim).isEqualTo(HddMergeExperiment.expectation());
        assertThat(yes.clauses()).extracting(Verdict.Clause::outcome).containsOnly(Verdict.Outcome.YES);
        assertThat(yes.outcome()).isEqualTo(Verdict.Outcome.YES);

        Verdict inverted = HddMergeExperiment.verdict(table(69.2, 15.3, 30.3, 4.0));
        assertThat(inverted.clauses()).extracting(Verdict.Clause::outcome).containsOnly(Verdict.Outcome.NO);
        assertThat(inverted.outcome()).isEqualTo(Verdict.Outcome.NO);

        Verdict noise = HddMergeExperiment.verdict(table(30.3, 4.0, 31.5, 4.2));
        assertThat(noise.clauses()).extracting(Verdict.Clause::outcome).containsOnly(Verdict.Outcome.INCONCLUSIVE);

        // Bigger commands without more throughput: one clause fails, so the shape is not shown.
        assertThat(HddMergeExperiment.verdict(table(30.3, 4.0, 25.0, 15.3)).outcome()).isEqualTo(Verdict.Outcome.NO);
    }
}
