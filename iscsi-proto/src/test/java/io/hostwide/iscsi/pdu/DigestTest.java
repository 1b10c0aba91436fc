package io.hostwide.iscsi.pdu;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostwide.iscsi.Hex;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** CRC32C vectors of RFC 3720 Appendix B.4, in wire byte order. */
class DigestTest {
    private static String wire(byte[] data, boolean direct) {
        ByteBuffer b = direct ? ByteBuffer.allocateDirect(data.length) : ByteBuffer.allocate(data.length);
        b.put(data).flip();
        ByteBuffer out = ByteBuffer.allocate(4);
        Digest.put(out, 0, new Digest().compute(b, 0, data.length));
        assertThat(b.position()).isZero();
        return Hex.of(out);
    }

    @Test
    void rfcVectors() {
        byte[] ones = new byte[32];
        Arrays.fill(ones, (byte) 0xff);
        byte[] up = new byte[32];
        byte[] down = new byte[32];
        for (int i = 0; i < 32; i++) {
            up[i] = (byte) i;
            down[i] = (byte) (31 - i);
        }
        byte[] read = Hex.bytes("01c00000 00000000 00000000 00000000 14000000 00000400 00000014 00000018"
                + "28000000 00000000 02000000 00000000");
        for (boolean direct : new boolean[] {false, true}) {
            assertThat(wire(new byte[32], direct)).isEqualTo("aa36918a");
            assertThat(wire(ones, direct)).isEqualTo("43aba862");
            assertThat(wire(up, direct)).isEqualTo("4e79dd46");
            assertThat(wire(down, direct)).isEqualTo("5cdb3f11");
            assertThat(wire(read, direct)).isEqualTo("563a96d9");
        }
    }

    @Test
    void incrementalDigestCoversPadding() {
        byte[] data = {1, 2, 3, 4, 5};
        ByteBuffer padded = ByteBuffer.wrap(new byte[] {1, 2, 3, 4, 5, 0, 0, 0});
        Digest d = new Digest();
        int whole = d.compute(padded, 0, 8);
        d.begin();
        d.update(ByteBuffer.wrap(data), 0, 2);
        d.update(ByteBuffer.wrap(data), 2, 3);
        assertThat(PduEncoder.finishDataDigest(d, 5)).isEqualTo(whole);
    }
}
