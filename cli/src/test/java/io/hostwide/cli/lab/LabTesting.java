package io.hostwide.cli.lab;

import io.hostwide.cli.util.Interrupts;

import java.util.List;

/** Shared helpers: a --quick run with no progress and no signal handler, and typed cell access. */
final class LabTesting {
    private LabTesting() {
    }

    /**
     * Measured time per cell in the tests: half of {@code --quick}'s, since they assert counts (merges, re-runs,
     * tag users), which need only enough I/O to happen, never a rate that needs a steady state.
     */
    static final long TEST_CELL_NANOS = LabCommand.QUICK_CELL_NANOS / 2;

    static LabRun quick() {
        return new LabRun(TEST_CELL_NANOS, 1, -1, true, Interrupts.none(), null);
    }

    static double number(List<Object> row, int column) {
        return ((Number) row.get(column)).doubleValue();
    }
}
