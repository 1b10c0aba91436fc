package io.hostwide.iscsi.server;

import static io.hostwide.iscsi.server.ServerLoopbackTest.TARGET;
import static io.hostwide.iscsi.server.ServerLoopbackTest.cdb;
import static io.hostwide.iscsi.server.ServerLoopbackTest.clearUnitAttention;
import static org.assertj.core.api.Assertions.assertThat;

import io.hostwide.iscsi.pdu.DataIn;
import io.hostwide.iscsi.pdu.DecodeResult;
import io.hostwide.iscsi.pdu.ScsiCommand;
import io.hostwide.iscsi.pdu.ScsiResponse;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Large Data-In segments leave from the command's own buffer in a gathering write ({@link ResponseWriter}), small
 * ones are copied and batched: with digests off and on, segments below, at and above the threshold, several
 * segments of one command, and more large reads pipelined than one write takes slices, every byte, DataSN,
 * buffer offset, digest and StatSN must come out as if everything had been copied.
 */
@Timeout(60)
class GatheringWriteTest {
    private static final int BLOCKS = 512; // 256 KiB of pattern at LBA 0
    private IscsiTargetServer server;

    @BeforeEach
    void start() throws Exception {
        server = DemoServer.start(0);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @ParameterizedTest
    @CsvSource({"None, 16384", "None, 262144", "CRC32C, 16384", "CRC32C, 262144", "CRC32C, 24576"})
    void largeAndSmallReadsInterleavedComeOutIntact(String digest, int maxRecv) throws Exception {
        try (TestInitiator i = new TestInitiator(server.boundAddresses().get(0))) {
            i.login(TARGET, "HeaderDigest=" + digest, "DataDigest=" + digest, "ImmediateData=Yes",
                    "InitialR2T=No", "MaxRecvDataSegmentLength=" + maxRecv);
            clearUnitAttention(i);
            byte[] pattern = new byte[BLOCKS * 512];
            new Random(maxRecv).nextBytes(pattern);
            writePattern(i, pattern);
            int[] sizes = {1, 32, 33, 128, 2, 256, 64, 512, 31, 48}; // blocks: 512 B up to 256 KiB
            for (int round = 0; round < 2; round++) { // the same ITTs again: every task was released
                Map<Integer, int[]> reads = new HashMap<>();
                for (int k = 0; k < 40; k++) { // more large slices than one gathering write takes
                    int blocks = sizes[k % sizes.length];
                    int lba = (k * 37) % (BLOCKS - blocks + 1);
                    reads.put(500 + k, new int[] {lba, blocks});
                    i.send(new ScsiCommand(false, true, true, false, 1, 0, 500 + k, blocks * 512, i.cmdSn++,
                            i.expStatSn, cdb(0x28, 0, 0, 0, lba >>> 8, lba & 0xff, 0, blocks >>> 8, blocks & 0xff, 0),
                            -1, null));
                }
                receiveAndCheck(i, reads, pattern, maxRecv);
            }
        }
    }

    private static void writePattern(TestInitiator i, byte[] pattern) throws Exception {
        for (int lba = 0; lba < BLOCKS; lba += 16) { // 8 KiB of immediate data per WRITE(10)
            i.send(new ScsiCommand(false, true, false, true, 1, 0, 100 + lba, 8192, i.cmdSn++, i.expStatSn,
                    cdb(0x2a, 0, 0, 0, lba >>> 8, lba & 0xff, 0, 0, 16, 0), -1,
                    ByteBuffer.wrap(pattern, lba * 512, 8192)));
            ScsiResponse r = (ScsiResponse) i.receive();
            assertThat(r.status()).isZero();
            i.expStatSn = r.statSn() + 1;
        }
    }

    private static void receiveAndCheck(TestInitiator i, Map<Integer, int[]> reads, byte[] pattern, int maxRecv)
            throws Exception {
        Map<Integer, byte[]> got = new HashMap<>();
        Map<Integer, Integer> nextDataSn = new HashMap<>();
        Map<Integer, Integer> nextOffset = new HashMap<>();
        int done = 0;
        int expStatSn = i.expStatSn;
        while (done < reads.size()) {
            DecodeResult d = i.receive();
            assertThat(d).isInstanceOf(DataIn.class); // a digest error would decode as something else
            DataIn in = (DataIn) d;
            int itt = in.initiatorTaskTag();
            int[] r = reads.get(itt);
            assertThat(r).isNotNull();
            byte[] buf = got.computeIfAbsent(itt, k -> new byte[r[1] * 512]);
            assertThat(in.dataSn()).isEqualTo(nextDataSn.getOrDefault(itt, 0));
            assertThat(in.bufferOffset()).isEqualTo(nextOffset.getOrDefault(itt, 0));
            assertThat(in.data().remaining()).isLessThanOrEqualTo(maxRecv);
            in.data().get(in.data().position(), buf, in.bufferOffset(), in.data().remaining());
            nextDataSn.put(itt, in.dataSn() + 1);
            nextOffset.put(itt, in.bufferOffset() + in.data().remaining());
            if (in.statusPresent()) {
                assertThat(in.status()).isZero();
                assertThat(in.statSn()).isEqualTo(expStatSn++); // StatSN in send order, one per command
                assertThat(nextOffset.get(itt)).isEqualTo(buf.length);
                assertThat(buf).isEqualTo(Arrays.copyOfRange(pattern, r[0] * 512, (r[0] + r[1]) * 512));
                done++;
            }
        }
        i.expStatSn = expStatSn;
    }
}
