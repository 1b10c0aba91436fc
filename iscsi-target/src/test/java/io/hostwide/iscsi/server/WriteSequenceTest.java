package io.hostwide.iscsi.server;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class WriteSequenceTest {
    final int[] out = new int[2];

    @Test
    void immediateThenR2tsWithinMaxBurstAndOutstandingLimit() {
        WriteSequence w = new WriteSequence(16);
        w.start(10_000, 1_000, true, true, 4096, 4096, 2);
        assertThat(w.unsolicitedOpen()).isFalse();
        assertThat(w.nextR2t(100, out)).isEqualTo(0);
        assertThat(out).containsExactly(1_000, 4096);
        assertThat(w.nextR2t(101, out)).isEqualTo(1);
        assertThat(out).containsExactly(5_096, 4096);
        assertThat(w.nextR2t(102, out)).isEqualTo(-1); // MaxOutstandingR2T = 2
        assertThat(w.onDataOut(100, 0, 1_000, 2048, false)).isEqualTo(WriteSequence.OK);
        assertThat(w.onDataOut(100, 1, 3_048, 2048, true)).isEqualTo(WriteSequence.OK);
        assertThat(w.nextR2t(102, out)).isEqualTo(2);
        assertThat(out).containsExactly(9_192, 808);
        assertThat(w.onDataOut(102, 0, 9_192, 808, true)).isEqualTo(WriteSequence.OK);
        assertThat(w.onDataOut(101, 0, 5_096, 4096, true)).isEqualTo(WriteSequence.DONE);
        assertThat(w.complete()).isTrue();
    }

    @Test
    void unsolicitedUpToFirstBurstThenSolicited() {
        WriteSequence w = new WriteSequence(16);
        w.start(16384, 512, false, false, 8192, 65536, 1);
        assertThat(w.unsolicitedOpen()).isTrue();
        assertThat(w.nextR2t(1, out)).isEqualTo(-1); // wait for the unsolicited burst
        assertThat(w.onDataOut(-1, 0, 512, 4096, false)).isEqualTo(WriteSequence.OK);
        assertThat(w.onDataOut(-1, 1, 4608, 3584, true)).isEqualTo(WriteSequence.OK);
        assertThat(w.unsolicitedOpen()).isFalse();
        assertThat(w.nextR2t(7, out)).isEqualTo(0);
        assertThat(out).containsExactly(8192, 8192);
        assertThat(w.onDataOut(7, 0, 8192, 8192, true)).isEqualTo(WriteSequence.DONE);
    }

    @Test
    void sequenceViolationsAreProtocolErrors() {
        WriteSequence w = new WriteSequence(16);
        w.start(8192, 0, false, false, 8192, 8192, 1);
        assertThat(w.onDataOut(-1, 1, 0, 512, false)).isEqualTo(WriteSequence.PROTOCOL_ERROR); // DataSN 1 first
        assertThat(w.onDataOut(-1, 0, 512, 512, false)).isEqualTo(WriteSequence.PROTOCOL_ERROR); // offset gap
        assertThat(w.onDataOut(-1, 0, 0, 9000, false)).isEqualTo(WriteSequence.PROTOCOL_ERROR); // past FirstBurst
        assertThat(w.onDataOut(5, 0, 0, 512, false)).isEqualTo(WriteSequence.PROTOCOL_ERROR); // unknown TTT
        WriteSequence noUnsolicited = new WriteSequence(16);
        noUnsolicited.start(8192, 0, false, true, 8192, 8192, 1); // InitialR2T=Yes
        assertThat(noUnsolicited.onDataOut(-1, 0, 0, 512, false)).isEqualTo(WriteSequence.PROTOCOL_ERROR);
        WriteSequence earlyFinal = new WriteSequence(16);
        earlyFinal.start(8192, 0, true, true, 8192, 8192, 1);
        earlyFinal.nextR2t(9, out);
        assertThat(earlyFinal.onDataOut(9, 0, 0, 512, true)).isEqualTo(WriteSequence.PROTOCOL_ERROR);
    }

    /** fits() judges as onDataOut() does and accounts for nothing: a placed payload is accounted once it is in. */
    @Test
    void fitsAgreesWithOnDataOutWithoutAccounting() {
        WriteSequence w = new WriteSequence(16);
        w.start(65536, 0, false, false, 16384, 65536, 1);
        assertThat(w.fits(-1, 0, 0, 8192, false)).isTrue();
        assertThat(w.fits(-1, 0, 0, 8192, false)).isTrue(); // asking twice changes nothing
        assertThat(w.received()).isZero();
        assertThat(w.fits(-1, 1, 0, 8192, false)).isFalse(); // DataSN
        assertThat(w.fits(-1, 0, 512, 8192, false)).isFalse(); // offset
        assertThat(w.fits(-1, 0, 0, 20000, false)).isFalse(); // past FirstBurstLength
        assertThat(w.fits(3, 0, 0, 8192, false)).isFalse(); // no such R2T
        assertThat(w.onDataOut(-1, 0, 0, 16384, true)).isEqualTo(WriteSequence.OK);
        assertThat(w.nextR2t(3, out)).isEqualTo(0);
        assertThat(w.fits(3, 0, 16384, 49152, true)).isTrue();
        assertThat(w.fits(3, 0, 16384, 4096, true)).isFalse(); // F before the R2T's end
        assertThat(w.fits(3, 0, 16384, 49156, true)).isFalse(); // past the R2T
        assertThat(w.received()).isEqualTo(16384);
        assertThat(w.onDataOut(3, 0, 16384, 49152, true)).isEqualTo(WriteSequence.DONE);
        assertThat(w.fits(3, 1, 65536, 0, true)).isFalse(); // the R2T is satisfied and gone
    }
}
