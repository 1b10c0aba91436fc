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
}
