package io.hostwide.iscsi.pdu;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;

/**
 * The decoder never throws: random frames and single-byte mutations of valid frames always give a Pdu or a
 * DecodeError, and step 1's remainder always describes the frame step 2 consumes.
 */
class PduDecoderFuzzTest {
    private static final List<Pdu> SEEDS = List.of(
            new NopOut(true, 0, 1, -1, 1, 1, ByteBuffer.wrap(new byte[] {1, 2, 3})),
            new ScsiCommand(false, true, true, false, 1, 0, 7, 4096, 1, 1, ByteBuffer.wrap(new byte[32]), 512, null),
            new DataOut(true, 0, 7, 3, 1, 0, 0, ByteBuffer.wrap(new byte[13])),
            new TextRequest(true, true, false, 0, 2, -1, 1, 1, ByteBuffer.wrap("SendTargets=All\0".getBytes())),
            new LoginRequest(true, false, 0, 1, 0, 0, 1, 0, 1, 0, 1, 1, ByteBuffer.wrap("A=B\0".getBytes())),
            new TaskManagementRequest(true, 1, 0, 3, 4, 1, 1, 1, 0), new LogoutRequest(true, 0, 4, 0, 1, 1),
            new SnackRequest(0, 0, 1, 1, 1, 0, 0));

    @Property(tries = 3000)
    void mutatedFramesNeverThrow(@ForAll int seed, @ForAll boolean hd, @ForAll boolean dd) {
        Random r = new Random(seed);
        Pdu pdu = SEEDS.get(Math.floorMod(seed, SEEDS.size()));
        ByteBuffer f = Frames.encode(pdu, hd, dd);
        int flips = 1 + r.nextInt(4);
        for (int i = 0; i < flips; i++) {
            f.put(r.nextInt(f.limit()), (byte) r.nextInt(256));
        }
        decodeAnything(PduDecoder.forTarget(hd, dd, 65536), f);
    }

    @Property(tries = 3000)
    void randomBytesNeverThrow(@ForAll @Size(min = 48, max = 600) byte[] raw, @ForAll boolean hd,
            @ForAll boolean dd) {
        decodeAnything(PduDecoder.forTarget(hd, dd, 65536), ByteBuffer.wrap(raw));
        decodeAnything(PduDecoder.forInitiator(hd, dd, 65536), ByteBuffer.wrap(raw));
    }

    private static void decodeAnything(PduDecoder d, ByteBuffer f) {
        int rem = d.remainder(f, 0);
        if (rem == PduDecoder.FRAME_TOO_LARGE) {
            assertThat(d.oversize(f, 0).dropConnection()).isTrue();
            return;
        }
        assertThat(rem).isNotNegative();
        ByteBuffer frame = ByteBuffer.allocate(48 + rem);
        frame.put(0, f, 0, Math.min(f.limit(), frame.capacity()));
        DecodeResult result = d.decode(frame, 0);
        assertThat(result).isNotNull();
        if (result instanceof DecodeError e) {
            assertThat(e.reason() != null || e.dropConnection()).isTrue();
        }
    }
}
