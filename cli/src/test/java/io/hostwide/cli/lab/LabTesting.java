package io.hostwide.cli.lab;

import io.hostwide.cli.util.Interrupts;

import java.util.List;

/** Shared helpers: a --quick run with no progress and no signal handler, and typed cell access. */
final class LabTesting {
    private LabTesting() {
    }

    static LabRun quick() {
        return new LabRun(LabCommand.QUICK_CELL_NANOS, -1, true, Interrupts.none(), null);
    }

    static double number(List<Object> row, int column) {
        return ((Number) row.get(column)).doubleValue();
    }
}
