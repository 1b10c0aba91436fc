package io.hostwide.iscsi.server;

import static io.hostwide.iscsi.server.ServerLoopbackTest.TARGET;
import static io.hostwide.iscsi.server.ServerLoopbackTest.cdb;
import static io.hostwide.iscsi.server.ServerLoopbackTest.clearUnitAttention;
import static org.assertj.core.api.Assertions.assertThat;

import io.hostwide.iscsi.pdu.DataIn;
import io.hostwide.iscsi.pdu.DecodeResult;
import io.hostwide.iscsi.pdu.LoginResponse;
import io.hostwide.iscsi.pdu.Pdu;
import io.hostwide.iscsi.pdu.ScsiCommand;
import io.hostwide.iscsi.pdu.ScsiResponse;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Several sessions at once, each keeping a queue of pipelined writes and reads in flight over its own LBA range, every
 * block stamped and verified; then random bytes thrown at a logged-in connection must not disturb the others.
 * Short by design (well under a second of I/O); the long soak belongs to the bench scripts.
 */
@Timeout(60) // a blocked socket read must fail the test, not hang the build
class ServerStressTest {
    static final int SESSIONS = 8;
    static final int DEPTH = 8;
    static final int ROUNDS = 40;

    @Test
    void parallelSessionsWithPipelinedVerifiedIo() throws Exception {
        IscsiTargetServer server = DemoServer.start(0);
        ExecutorService pool = Executors.newFixedThreadPool(SESSIONS);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int s = 0; s < SESSIONS; s++) {
                int session = s;
                results.add(pool.submit(() -> runSession(server, session)));
            }
            int verified = 0;
            for (Future<Integer> f : results) {
                verified += f.get(60, TimeUnit.SECONDS);
            }
            assertThat(verified).isEqualTo(SESSIONS * ROUNDS * DEPTH);
        } finally {
            pool.shutdownNow();
            server.close();
        }
    }

    private static int runSession(IscsiTargetServer server, int session) throws Exception {
        try (TestInitiator i = new TestInitiator(server.boundAddresses().get(0))) {
            i.isid = 0x400000000100L + session;
            LoginResponse r = i.login(TARGET, "ImmediateData=Yes", "InitialR2T=No", "MaxOutstandingR2T=4",
                    "MaxRecvDataSegmentLength=65536");
            assertThat(r.statusClass()).isZero();
            clearUnitAttention(i);
            Random rnd = new Random(session);
            int verified = 0;
            for (int round = 0; round < ROUNDS; round++) {
                Map<Integer, byte[]> written = new HashMap<>();
                for (int k = 0; k < DEPTH; k++) { // DEPTH writes in flight, 4 KiB each, immediate data
                    int lba = (session * 1024 + round % 16 * DEPTH * 8 + k * 8);
                    byte[] data = new byte[4096];
                    rnd.nextBytes(data);
                    written.put(lba, data);
                    i.send(new ScsiCommand(false, true, false, true, 1, 0, 1000 + k, 4096, i.cmdSn++, i.expStatSn,
                            cdb(0x2a, 0, lba >>> 24, lba >>> 16 & 0xff, lba >>> 8 & 0xff, lba & 0xff, 0, 0, 8, 0), -1,
                            ByteBuffer.wrap(data)));
                }
                for (int k = 0; k < DEPTH; k++) {
                    ScsiResponse w = (ScsiResponse) i.receive();
                    assertThat(w.status()).isZero();
                }
                Map<Integer, Integer> ittToLba = new HashMap<>();
                int k = 0;
                for (int lba : written.keySet()) { // DEPTH reads in flight
                    ittToLba.put(2000 + k, lba);
                    i.send(new ScsiCommand(false, true, true, false, 1, 0, 2000 + k++, 4096, i.cmdSn++, i.expStatSn,
                            cdb(0x28, 0, lba >>> 24, lba >>> 16 & 0xff, lba >>> 8 & 0xff, lba & 0xff, 0, 0, 8, 0), -1,
                            null));
                }
                for (int n = 0; n < DEPTH; n++) {
                    DecodeResult d = i.receive();
                    DataIn in = (DataIn) d;
                    assertThat(in.statusPresent()).isTrue();
                    byte[] got = new byte[in.data().remaining()];
                    in.data().get(got);
                    assertThat(got).isEqualTo(written.get(ittToLba.get(in.initiatorTaskTag())));
                    verified++;
                }
            }
            return verified;
        }
    }

    @Test
    void garbageInTheFullFeaturePhaseNeverTakesTheServerDown() throws Exception {
        IscsiTargetServer server = DemoServer.start(b -> b.nopIn(0, 1000), 0);
        try {
            Random rnd = new Random(7);
            for (int round = 0; round < 30; round++) {
                try (TestInitiator i = new TestInitiator(server.boundAddresses().get(0))) {
                    i.isid = 0x400000000200L + round;
                    i.login(TARGET);
                    for (int n = 0; n < 20; n++) {
                        byte[] junk = new byte[48 + rnd.nextInt(200)];
                        rnd.nextBytes(junk);
                        junk[4] = 0; // keep AHS small so the frame is plausible
                        junk[5] = 0;
                        junk[6] = 0;
                        junk[7] = (byte) rnd.nextInt(64);
                        i.ch.write(ByteBuffer.wrap(junk));
                    }
                } catch (java.io.IOException expected) {
                    // the target may close a connection that sent garbage (RFC 7143 §7.8 framing errors)
                }
            }
            // still serving
            try (TestInitiator ok = new TestInitiator(server.boundAddresses().get(0))) {
                ok.isid = 0x400000000300L;
                assertThat(ok.login(TARGET).statusClass()).isZero();
                clearUnitAttention(ok);
                ok.send(new ScsiCommand(false, true, false, false, 1, 0, 1, 0, ok.cmdSn++, ok.expStatSn, cdb(0), -1,
                        null));
                Pdu p = (Pdu) ok.receive();
                assertThat(((ScsiResponse) p).status()).isZero();
            }
        } finally {
            server.close();
        }
    }
}
