package io.hostwide.iscsi.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 4's soak: 32 sessions at queue depth 32 (the target's per-session CmdSN window is 32 too) for
 * {@code -Dhostwide.soak.seconds} (default 60), mixed stamped READ(10)/WRITE(10) of 1 to 128 blocks over each
 * session's own range and a range all sessions share, with every negotiation flavour of data transfer (immediate,
 * unsolicited, solicited by R2T, digests on). Blocks written by one session are read and overwritten by the others,
 * but, as a file system would, no two commands in flight overlap unless both read ({@link BlockLocks}): overlapping
 * plain writes have no atomicity in SBC-4, so only then can every answer be exact. Four sessions, one per flavour,
 * drop their connection in the middle of a write burst and reinstate the session. Asserts data and exactly-once
 * completion, never speed: every block read is one a legal history allows (no acknowledged write lost, none torn or
 * misplaced), every command completes exactly once except those on a dropped connection, which never complete; a
 * final read-back of the whole area checks every block again.
 *
 * <p>Longer soaks: {@code -Dhostwide.soak.seconds=600 -Djunit.jupiter.execution.timeout.mode=disabled}.
 */
class SessionSoakTest {
    static final int SESSIONS = 32;
    static final long SHARED = 16384;
    static final long OWN = 4096;

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS) // 60 s of I/O plus log-in, drain and read-back
    void thirtyTwoSessionsAtQueueDepthThirtyTwoWithVerifiedDataAndDrops() throws Exception {
        long seconds = Long.getLong("hostwide.soak.seconds", 60);
        // all 32 sessions come from 127.0.0.1 at once: on a loaded machine more than the default 16 per address can
        // still be logging in together, and the 17th would be refused (LoginGate), as a login flood is
        IscsiTargetServer server = DemoServer.start(b -> b.queueDepth(SoakSession.DEPTH)
                .pendingLogins(2 * SESSIONS, 2 * SESSIONS), 0);
        InetSocketAddress portal = server.boundAddresses().get(0);
        WriteHistory history = new WriteHistory((int) (SHARED + SESSIONS * OWN));
        BlockLocks locks = new BlockLocks((int) (SHARED + SESSIONS * OWN));
        List<String> errors = SoakSession.newErrorList();
        List<SoakSession> sessions = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(SESSIONS);
        try {
            long start = System.nanoTime();
            long deadline = start + TimeUnit.SECONDS.toNanos(seconds);
            List<Future<?>> running = new ArrayList<>();
            for (int s = 0; s < SESSIONS; s++) {
                SoakSession session = new SoakSession(portal, s + 1, history, locks, SHARED, SHARED + s * OWN, OWN,
                        errors, keys(s));
                sessions.add(session);
                // sessions 3, 12, 21 and 30 (one per transfer flavour) drop their connection at 3/8 .. 6/8 of the run
                long dropAt = dropping(s) ? start + (deadline - start) * (3 + s / 9) / 8 : 0;
                running.add(pool.submit(() -> {
                    session.run(deadline, dropAt);
                    return null;
                }));
            }
            for (Future<?> f : running) {
                f.get(seconds + 120, TimeUnit.SECONDS);
            }
            assertThat(errors).isEmpty();
            SoakSession checker = new SoakSession(portal, 99, history, null, SHARED, 0, 0, errors);
            checker.readBack(0, SHARED + SESSIONS * OWN);
            assertThat(errors).isEmpty();
            assertThat(checker.readsVerified.get()).isEqualTo((SHARED + SESSIONS * OWN) / 128);
        } finally {
            pool.shutdownNow();
            server.close();
        }
        long reads = 0;
        long acked = 0;
        for (SoakSession s : sessions) {
            // exactly once: every command issued either completed once or was on a dropped connection
            assertThat(s.completed.get() + s.lost).isEqualTo(s.issued);
            assertThat(s.drops).isEqualTo(dropping(sessions.indexOf(s)) ? 1 : 0);
            reads += s.readsVerified.get();
            acked += s.writesAcked.get();
        }
        System.out.printf("soak: %d s, %d sessions, %d writes acknowledged, %d reads verified%n", seconds,
                SESSIONS, acked, reads);
        assertThat(reads).isPositive();
        assertThat(acked).isPositive();
    }

    private static boolean dropping(int session) {
        return session % 9 == 3;
    }

    /** Every data transfer flavour of RFC 7143 §3.2.4.2, and digests, across the sessions. */
    static String[] keys(int s) {
        return switch (s % 4) {
            case 0 -> new String[] {"ImmediateData=No", "InitialR2T=Yes", "MaxRecvDataSegmentLength=16384"};
            case 1 -> new String[] {"ImmediateData=Yes", "InitialR2T=No", "MaxRecvDataSegmentLength=65536"};
            case 2 -> new String[] {"ImmediateData=Yes", "InitialR2T=Yes", "HeaderDigest=CRC32C",
                "DataDigest=CRC32C", "MaxRecvDataSegmentLength=8192"};
            default -> new String[] {"ImmediateData=No", "InitialR2T=No", "MaxOutstandingR2T=4",
                "MaxRecvDataSegmentLength=262144"};
        };
    }
}
