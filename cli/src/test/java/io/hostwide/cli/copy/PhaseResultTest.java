package io.hostwide.cli.copy;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The dd-style report of one pass says what was done, and a stopped pass never claims the whole range. */
class PhaseResultTest {

    private static PhaseResult verify(long bytes, long mismatches, String error, boolean interrupted) {
        return new PhaseResult(Phase.VERIFY, VerifyMethod.COMPARE, 512, bytes / 65536, 0, 0, 0, bytes, bytes,
                1_000_000_000L, mismatches, mismatches > 0 ? 4096 : -1, error, interrupted);
    }

    @Test
    void aCompleteVerifyWithoutDifferencesSaysSo() {
        assertThat(verify(1 << 20, 0, null, false).toText()).contains("verify: no differences\n")
                .doesNotContain("interrupted").doesNotContain("stopped");
    }

    /** Regression: Ctrl-C during verify printed "verify: no differences" above the "interrupted" line. */
    @Test
    void anInterruptedVerifyClaimsNoDifferencesOnlyForTheBytesChecked() {
        String text = verify(196_608, 0, null, true).toText();
        assertThat(text).contains("verify: no differences in the 196608 bytes checked")
                .contains("verify: interrupted; the first 196608 bytes of the range are done")
                .doesNotContain("verify: no differences\n");
    }

    @Test
    void aPassStoppedByAnIoErrorSaysStoppedNotInterrupted() {
        String text = verify(65_536, 0, "READ at byte 65536: IOERR", false).toText();
        assertThat(text).contains("verify: stopped by an I/O error: READ at byte 65536: IOERR")
                .contains("verify: stopped; the first 65536 bytes of the range are done")
                .doesNotContain("interrupted");
    }

    @Test
    void differencesNameTheFirstByteAndItsLba() {
        assertThat(verify(1 << 20, 3, null, false).toText())
                .contains("verify: 3 chunks differ, first difference at byte 4096 (LBA 8)");
    }
}
