package io.hostwide.iscsi.initiator;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostwide.iscsi.login.ChapPolicy;
import io.hostwide.iscsi.login.NegotiationPolicy;
import io.hostwide.scsi.sd.ScsiDisk;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Writes and reads back through block layer → midlayer → initiator → TCP → target core, at several queue depths and
 * transfer sizes, under negotiations that send each data path: immediate data, unsolicited Data-Out, Data-Out for
 * R2Ts (several per command when a write exceeds MaxBurstLength), and multi-PDU Data-In.
 */
class DataIntegrityTest {
    private static final int[] SIZES = {512, 4096, 65536, 300 * 1024, 1 << 20};
    private static final int[] DEPTHS = {1, 8, 32};

    enum Path { IMMEDIATE, R2T, IMMEDIATE_R2T, UNSOLICITED, DIGESTS }

    static Stream<Arguments> paths() {
        NegotiationPolicy d = NegotiationPolicy.defaults();
        return Stream.of(
                Arguments.of("immediate data, 256 KiB segments", Path.IMMEDIATE, d, UnaryOperator.<InitiatorConfig>identity()),
                Arguments.of("R2T only (InitialR2T=Yes, ImmediateData=No)", Path.R2T, d,
                        (UnaryOperator<InitiatorConfig>) c -> c.initialR2t(true).immediateData(false)),
                Arguments.of("immediate data then R2T", Path.IMMEDIATE_R2T, d,
                        (UnaryOperator<InitiatorConfig>) c -> c.initialR2t(true).firstBurstLength(65536)),
                // 8 KiB target segments: immediate 8 KiB, unsolicited Data-Out to 64 KiB, then R2Ts; 4 KiB Data-In.
                Arguments.of("unsolicited Data-Out, small segments, 256 KiB bursts", Path.UNSOLICITED, policy(d, 8192, 262144),
                        (UnaryOperator<InitiatorConfig>) c -> c.maxRecvDataSegmentLength(4096)
                                .firstBurstLength(65536).maxBurstLength(262144)),
                Arguments.of("CRC32C digests, two connections", Path.DIGESTS, d,
                        (UnaryOperator<InitiatorConfig>) c -> c.headerDigest(true).dataDigest(true).connections(2)));
    }

    private static NegotiationPolicy policy(NegotiationPolicy d, int maxRecv, int maxBurst) {
        return new NegotiationPolicy(maxRecv, maxBurst, d.firstBurstLength(), d.maxOutstandingR2t(), d.maxConnections(),
                d.initialR2t(), d.immediateData(), d.headerDigestCrc32c(), d.dataDigestCrc32c(), d.defaultTime2Wait(),
                d.defaultTime2Retain());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("paths")
    void writesReadBackAtEveryDepthAndSize(String name, Path path, NegotiationPolicy policy, UnaryOperator<InitiatorConfig> tweak)
            throws Exception {
        try (TestTarget t = new TestTarget(ChapPolicy.NONE, policy, 64, 64L << 20);
             IscsiHba hba = IscsiHba.connect(tweak.apply(t.config()))) {
            ScsiDisk disk = hba.disk(0);
            long seed = 1;
            for (int size : SIZES) {
                for (int depth : DEPTHS) {
                    int count = (int) Math.min(depth + 2L, (60L << 20) / size);   // enough to fill the depth
                    DiskIo.writeReadVerify(disk, 0, size, count, depth, seed++);
                }
            }
            assertThat(hba.reinstatements()).isZero();
            InitiatorStats st = hba.stats();
            // Tasks must stay one per command slot, however many commands each slot carried.
            assertThat(hba.session().taskSlots()).as("task slots after %d commands", st.commands())
                    .isLessThanOrEqualTo(hba.host().canQueue() * hba.host().nrHwQueues() + 16);
            assertThat(st.dataInPdus()).as("Data-In PDUs").isGreaterThan(st.commands() / 2);
            switch (path) {
                case IMMEDIATE -> assertThat(st.immediateDataPdus()).isPositive();
                case R2T -> assertThat(st.immediateDataPdus() + st.unsolicitedDataOutPdus()).isZero();
                case IMMEDIATE_R2T -> assertThat(st.unsolicitedDataOutPdus()).isZero();
                case UNSOLICITED -> assertThat(st.unsolicitedDataOutPdus()).isPositive();
                case DIGESTS -> assertThat(hba.host().nrHwQueues()).isEqualTo(2);
            }
            if (path != Path.IMMEDIATE && path != Path.DIGESTS) {
                assertThat(st.r2ts()).as("R2Ts").isPositive();
            }
        }
    }
}
