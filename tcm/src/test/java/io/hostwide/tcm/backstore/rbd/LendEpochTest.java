package io.hostwide.tcm.backstore.rbd;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** When an EROFS is a write that met a handover of the lock rather than a fence ({@link LendEpoch}). */
class LendEpochTest {
    @Test
    void anOperationStartedWhileTheLockWasHeldAndNeverLentSinceMeetsAFence() {
        LendEpoch e = new LendEpoch();
        long start = e.now();
        assertThat(e.lentSince(start)).isFalse();
        e.taken(); // taking a lock already held changes nothing
        assertThat(e.lentSince(start)).isFalse();
    }

    @Test
    void lentNowOrLentSinceTheStartIsAHandoverEvenAfterTheLockCameBack() {
        LendEpoch e = new LendEpoch();
        long before = e.now();
        e.lent();
        assertThat(e.lentSince(before)).as("lent now").isTrue();
        long during = e.now();
        assertThat(e.lentSince(during)).as("started while lent, still lent").isTrue();
        e.lent(); // a second release while lent is the same lend
        assertThat(e.now()).isEqualTo(during);
        e.taken();
        assertThat(e.lentSince(before)).as("the lock came back, but the write started before the handover").isTrue();
        assertThat(e.lentSince(during)).as("started during the handover").isTrue();
        long after = e.now();
        assertThat(e.lentSince(after)).as("started after the lock came back: EROFS is a fence").isFalse();
    }
}
