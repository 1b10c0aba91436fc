package io.hostwide.cli.lab;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RestartsExperimentTest {

    /**
     * IOPS are not compared: on a loaded 2-core machine the CPU, not the budget, limits them and the ratios move
     * between runs. The mechanism is asserted instead, which does not depend on speed: with jobs x iodepth
     * twice the queue_depth the kernel policy must re-run the LUN's queues through {@code restarts}, and the
     * wake_one policy never does (it wakes one hctx per budget release instead).
     */
    @Test
    void quickRunShowsKernelRestartsOnlyWhenTheBudgetRunsOut() throws Exception {
        LabReport r = new RestartsExperiment().run(LabTesting.quick());
        assertThat(r.interrupted).isFalse();
        assertThat(r.ours.rows()).hasSize(4);
        for (var row : r.ours.rows()) {
            assertThat(LabTesting.number(row, 2)).as("KIOPS %s", row).isPositive();
        }
        var kernelDepth2 = r.ours.rows().get(1);
        assertThat(kernelDepth2.subList(0, 2)).containsExactly("kernel", 2);
        assertThat(LabTesting.number(kernelDepth2, 5)).as("kernel restart re-runs per I/O at iodepth 2").isPositive();
        for (var row : r.ours.rows().subList(2, 4)) {
            assertThat(row.get(0)).isEqualTo("wake_one");
            assertThat(LabTesting.number(row, 5)).as("wake_one restart re-runs per I/O").isZero();
        }
        assertThat(r.shown).isNotNull();
    }
}
