package io.hostwide.cli.lab;

import io.hostwide.loop.LoopHba;
import io.hostwide.tcm.dispatch.Command;
import io.hostwide.tcm.dispatch.CommandGate;
import io.hostwide.tcm.dispatch.GateSlot;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

import static io.hostwide.cli.lab.TargetQueuesExperiment.*;
import static org.assertj.core.api.Assertions.assertThat;

class TargetQueuesExperimentTest {

    /** Each setting puts exactly its locks into the gate sequence, around the core's own gates. */
    @Test
    void settingsInstallTheirLocksAndNothingElse() {
        try (LoopHba hba = Hbas.debug("submit_queues=1,ndelay=0")) {
            var p = hba.core().pipeline();
            CommandGate alua = p.gate(GateSlot.ALUA);
            CommandGate ordered = p.gate(GateSlot.TASK_ATTRIBUTE);
            CommandGate reservation = p.gate(GateSlot.RESERVATION);
            configure(p, LOCK_FREE);
            assertThat(p.gate(GateSlot.ALUA)).isSameAs(alua);
            assertThat(p.gate(GateSlot.RESERVATION)).isSameAs(reservation);
            configure(p, LOCK_PR);
            assertThat(p.gate(GateSlot.RESERVATION)).isInstanceOf(LockedGate.class);
            assertThat(p.gate(GateSlot.ALUA)).isSameAs(alua);
            assertThat(p.gate(GateSlot.TASK_ATTRIBUTE)).isSameAs(ordered);
        }
        try (LoopHba hba = Hbas.debug("submit_queues=1,ndelay=0")) {
            var p = hba.core().pipeline();
            configure(p, LOCKS_2020);
            assertThat(List.of(p.gate(GateSlot.ALUA), p.gate(GateSlot.TASK_ATTRIBUTE), p.gate(GateSlot.RESERVATION)))
                    .allMatch(g -> g instanceof LockedGate);
            assertThat(p.gate(GateSlot.UNIT_ATTENTION)).isNotInstanceOf(LockedGate.class);
        }
        try (LoopHba hba = Hbas.debug("submit_queues=1,ndelay=0")) {
            configure(hba.core().pipeline(), NO_PR);
            assertThat(hba.core().pipeline().gate(GateSlot.RESERVATION)).as("emulate_pr=0: no check").isNull();
        }
    }

    /** The lock is held while the gate decides (and, for the ordered bookkeeping, while it completes). */
    @Test
    void lockedGateHoldsItsLockAroundTheInnerGate() {
        ReentrantLock lock = new ReentrantLock();
        AtomicInteger heldIn = new AtomicInteger();
        CommandGate inner = new CommandGate() {
            @Override
            public int enter(Command cmd) {
                heldIn.addAndGet(lock.isHeldByCurrentThread() ? 1 : 100);
                return FAIL;
            }

            @Override
            public void exit(Command cmd) {
                heldIn.addAndGet(lock.isHeldByCurrentThread() ? 10 : 1000);
            }
        };
        assertThat(new LockedGate(inner, lock, true).enter(null)).isEqualTo(CommandGate.FAIL);
        new LockedGate(inner, lock, true).exit(null);
        assertThat(heldIn.get()).isEqualTo(11);
        new LockedGate(inner, lock, false).exit(null);
        assertThat(heldIn.get()).as("without onExit the completion takes no lock").isEqualTo(1011);
        assertThat(lock.isLocked()).isFalse();
    }

    private static Medians table(double locks, double prLock, double noPr, double free1, double free2, double free4) {
        Medians.Builder b = Medians.builder();
        for (int q : QUEUES) {
            b.cell(cell(LOCKS_2020, q), KIOPS, locks).cell(cell(LOCK_PR, q), KIOPS, prLock)
                    .cell(cell(NO_PR, q), KIOPS, noPr);
        }
        return b.cell(cell(LOCK_FREE, 1), KIOPS, free1).cell(cell(LOCK_FREE, 2), KIOPS, free2)
                .cell(cell(LOCK_FREE, 4), KIOPS, free4).build();
    }

    private static List<Verdict.Outcome> outcomes(Verdict v) {
        return v.clauses().stream().map(Verdict.Clause::outcome).toList();
    }

    @Test
    void verdictOnSyntheticTables() {
        // The seed's shape: 1.4M -> 2M with the PR lock only, more without it, lock-free scales and keeps up.
        Verdict seed = TargetQueuesExperiment.verdict(table(140, 200, 260, 150, 280, 265));
        assertThat(seed.clauses()).extracting(Verdict.Clause::claim).isEqualTo(expectation());
        assertThat(outcomes(seed)).containsOnly(Verdict.Outcome.YES);
        // Inverted: every lock removed costs throughput.
        Verdict inverted = TargetQueuesExperiment.verdict(table(260, 200, 140, 280, 150, 100));
        assertThat(outcomes(inverted)).containsOnly(Verdict.Outcome.NO);
        // All within the noise: the directional clauses cannot say, the "keeps up" clause can.
        Verdict flat = TargetQueuesExperiment.verdict(table(100, 103, 98, 101, 104, 99));
        assertThat(outcomes(flat)).containsExactly(Verdict.Outcome.INCONCLUSIVE, Verdict.Outcome.INCONCLUSIVE,
                Verdict.Outcome.INCONCLUSIVE, Verdict.Outcome.YES);
    }

    /** Throughput is not compared (2 shared cores); the run must measure every cell without an I/O error. */
    @Test
    void quickRunMeasuresEveryCell() throws Exception {
        LabReport r = new TargetQueuesExperiment().run(LabTesting.quick());
        assertThat(r.interrupted).isFalse();
        assertThat(r.ours.rows()).hasSize(SETTINGS.length * QUEUES.length);
        for (var row : r.ours.rows()) {
            assertThat(LabTesting.number(row, 2)).as("KIOPS %s", row).isPositive();
        }
        assertThat(r.verdict).isNotNull();
        assertThat(r.notes).startsWith("CPU per I/O against lock-free");
    }
}
