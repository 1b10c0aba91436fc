package io.hostwide.iscsi.pdu;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** The flyweight path sees exactly what the record path sees, and declines whatever needs a DecodeError. */
class HotPduTest {
    static final ScsiCommand CMD = new ScsiCommand(false, false, false, true, 2, 0x0001_0000_0000_0000L, 77, 4096,
            9, 3, ByteBuffer.wrap(new byte[] {0x2a, 0, 0, 0, 0, 8, 0, 0, 8, 0}), -1,
            ByteBuffer.wrap(new byte[] {1, 2, 3, 4, 5}));
    static final DataOut OUT = new DataOut(true, 0, 77, 0x1234, 3, 2, 512, ByteBuffer.wrap(new byte[] {9, 8, 7}));

    @Test
    void flyweightMatchesTheRecordUnderEveryDigestSetting() {
        for (int mode = 0; mode < 4; mode++) {
            boolean hd = (mode & 1) != 0;
            boolean dd = (mode & 2) != 0;
            for (Pdu p : new Pdu[] {CMD, OUT}) {
                ByteBuffer f = Frames.encode(p, hd, dd);
                PduDecoder d = PduDecoder.forTarget(hd, dd, 8192);
                HotPdu v = new HotPdu();
                assertThat(d.hot(f, 0, v)).isTrue();
                assertThat(v.toRecord()).isEqualTo(p);
                assertThat(d.decode(f, 0)).isEqualTo(p);
            }
        }
    }

    @Test
    void declinesWhatTheRecordPathMustJudge() {
        PduDecoder d = PduDecoder.forTarget(true, true, 8192);
        HotPdu v = new HotPdu();
        ByteBuffer badHeader = Frames.encode(CMD, true, true);
        badHeader.put(20, (byte) 1);
        assertThat(d.hot(badHeader, 0, v)).isFalse();
        assertThat(d.decode(badHeader, 0)).isInstanceOf(DecodeError.class);
        ByteBuffer badData = Frames.encode(OUT, true, true);
        badData.put(52, (byte) 0);
        assertThat(d.hot(badData, 0, v)).isFalse();
        assertThat(d.decode(badData, 0)).isInstanceOf(DecodeError.class);
        ScsiCommand reserved = new ScsiCommand(false, true, true, false, 1, 0, -1, 0, 1, 1, null, -1, null);
        assertThat(PduDecoder.forTarget(false, false, 8192).hot(Frames.encode(reserved, false, false), 0, v))
                .isFalse();
        ScsiCommand withAhs = new ScsiCommand(false, true, true, false, 1, 0, 5, 0, 1, 1, ByteBuffer.allocate(32), -1,
                null);
        assertThat(PduDecoder.forTarget(false, false, 8192).hot(Frames.encode(withAhs, false, false), 0, v))
                .isFalse();
        assertThat(PduDecoder.forTarget(false, false, 8192)
                .hot(Frames.encode(new NopOut(true, 0, 1, -1, 1, 1, null), false, false), 0, v)).isFalse();
    }
}
