package io.hostwide.tcm;

import io.hostwide.scsi.spec.Asc;
import io.hostwide.scsi.spec.BigEndian;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.tcm.lu.InMemoryReservationStore;
import io.hostwide.tcm.lu.PrType;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Persistent and SPC-2 reservations of one LU exported by two gateways (issue 16 item 2), each its own target
 * core with its own port, sharing the state through one {@link InMemoryReservationStore}: what one gateway's
 * PERSISTENT RESERVE OUT returns GOOD for is already enforced on the other.
 */
class SharedReservationTest {
    static final long K1 = 0x1111_2222_3333_4444L;
    static final long K2 = 0x5555_6666_7777_8888L;
    static final String I1 = "iqn.2026-12.io.hostwide:one";
    static final String I2 = "iqn.2026-12.io.hostwide:two";
    static final byte[] RESERVE6 = Harness.cdb(0x16, 0, 0, 0, 0, 0);
    static final byte[] RELEASE6 = Harness.cdb(0x17, 0, 0, 0, 0, 0);

    final InMemoryReservationStore cluster = new InMemoryReservationStore();

    @Test
    void reservationOnAConflictsOnB() throws Exception {
        try (Gateway ga = new Gateway(cluster, "A", 1); Gateway gb = new Gateway(cluster, "B", 2)) {
            Gateway.Path a = ga.open(I1);
            Gateway.Path b = gb.open(I2);
            assertThat(a.register(0, K1).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(a.reserve(K1, PrType.WRITE_EXCLUSIVE).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(b.write().status()).isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
            assertThat(b.read().status()).as("Write Exclusive lets anyone read").isEqualTo(ScsiStatus.GOOD);
            assertThat(a.write().status()).isEqualTo(ScsiStatus.GOOD);
            byte[] r = Nexus.ok(b.prin(1)).data();
            assertThat(BigEndian.s64(r, 8)).isEqualTo(K1);
            assertThat(r[21] & 0xF).isEqualTo(PrType.WRITE_EXCLUSIVE);
        }
    }

    @Test
    void preemptAndAbortFromBReachesAOnA() throws Exception {
        try (Gateway ga = new Gateway(cluster, "A", 1); Gateway gb = new Gateway(cluster, "B", 2)) {
            Gateway.Path a = ga.open(I1);
            Gateway.Path b = gb.open(I2);
            a.register(0, K1);
            a.reserve(K1, PrType.EXCLUSIVE_ACCESS);
            b.register(0, K2);
            assertThat(b.write().status()).isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
            assertThat(b.prout(5, PrType.EXCLUSIVE_ACCESS, K2, K1, 0).status()).isEqualTo(ScsiStatus.GOOD);
            // SPC-4 §5.13.11.4: the preempted nexus, on the other gateway, hears REGISTRATIONS PREEMPTED
            assertThat(a.drainUnitAttentions()).containsExactly(Asc.REGISTRATIONS_PREEMPTED);
            assertThat(a.write().status()).isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
            assertThat(b.write().status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(keys(a)).containsExactly(K2);
        }
    }

    @Test
    void allTargetPortsRegistrationCountsOnBothGateways() throws Exception {
        try (Gateway ga = new Gateway(cluster, "A", 1); Gateway gb = new Gateway(cluster, "B", 2)) {
            Gateway.Path viaA = ga.open(I1);
            Gateway.Path viaB = gb.open(I1);
            assertThat(viaA.prout(0, 0, 0, K1, 0x04).status()).isEqualTo(ScsiStatus.GOOD); // ALL_TG_PT
            assertThat(keys(viaB)).containsExactly(K1);
            assertThat(viaB.reserve(K1, PrType.EXCLUSIVE_ACCESS_REGISTRANTS_ONLY).status())
                    .as("the same initiator port through B's port is registered").isEqualTo(ScsiStatus.GOOD);
            assertThat(viaA.write().status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(gb.open(I2).write().status()).isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
        }
    }

    @Test
    void registerAndMoveToAPortOfTheOtherGateway() throws Exception {
        try (Gateway ga = new Gateway(cluster, "A", 1); Gateway gb = new Gateway(cluster, "B", 2)) {
            Gateway.Path a = ga.open(I1);
            Gateway.Path b = gb.open(I2);
            a.register(0, K1);
            a.reserve(K1, PrType.WRITE_EXCLUSIVE);
            byte[] name = b.session().initiatorPortName().getBytes(StandardCharsets.UTF_8);
            int tidLen = 4 + Math.max(20, (name.length + 1 + 3) & ~3);
            byte[] p = new byte[24 + tidLen];
            BigEndian.put64(p, 0, K1);
            BigEndian.put64(p, 8, K2);
            p[17] = 0x02; // UNREG
            BigEndian.put16(p, 18, gb.port.relativePortId()); // a port A does not have: B advertised it
            BigEndian.put32(p, 20, tidLen);
            p[24] = 0x45;
            BigEndian.put16(p, 26, tidLen - 4);
            System.arraycopy(name, 0, p, 28, name.length);
            assertThat(a.out(Nexus.proutCdb(7, PrType.WRITE_EXCLUSIVE, p.length), p).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(b.write().status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(a.write().status()).isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
            byte[] full = Nexus.ok(b.prin(3)).data();
            assertThat(BigEndian.u16(full, 8 + 18)).as("RELATIVE TARGET PORT IDENTIFIER").isEqualTo(2);
        }
    }

    @Test
    void readFullStatusIsTheSameOnBothGateways() throws Exception {
        try (Gateway ga = new Gateway(cluster, "A", 1); Gateway gb = new Gateway(cluster, "B", 2)) {
            Gateway.Path a = ga.open(I1);
            Gateway.Path b = gb.open(I2);
            a.register(0, K1);
            b.register(0, K2);
            a.prout(0, 0, K1, K1, 0x01); // APTPL
            b.reserve(K2, PrType.WRITE_EXCLUSIVE_REGISTRANTS_ONLY);
            byte[] fromA = Nexus.ok(a.prin(3)).data();
            byte[] fromB = Nexus.ok(b.prin(3)).data();
            assertThat(fromA).isEqualTo(fromB);
            assertThat(BigEndian.u32(fromA, 0)).as("PRgeneration: three registers").isEqualTo(3);
        }
    }

    @Test
    void spc2ReserveOnAConflictsOnB() throws Exception {
        try (Gateway ga = new Gateway(cluster, "A", 1); Gateway gb = new Gateway(cluster, "B", 2)) {
            Gateway.Path a = ga.open(I1);
            Gateway.Path b = gb.open(I2);
            assertThat(a.none(RESERVE6).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(b.none(RESERVE6).status()).isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
            assertThat(b.write().status()).isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
            assertThat(b.none(RELEASE6).status()).as("RELEASE by a non-holder: GOOD, no effect").isEqualTo(ScsiStatus.GOOD);
            assertThat(b.write().status()).isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
            assertThat(a.none(RELEASE6).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(b.none(RESERVE6).status()).isEqualTo(ScsiStatus.GOOD);
            // I_T nexus loss on B releases it, and A sees that
            b.session().close();
            assertThat(a.none(RESERVE6).status()).isEqualTo(ScsiStatus.GOOD);
        }
    }

    @Test
    void aRestartedGatewayKeepsTheReservation() throws Exception {
        try (Gateway gb = new Gateway(cluster, "B", 2)) {
            Gateway.Path b = gb.open(I2);
            try (Gateway ga = new Gateway(cluster, "A", 1)) {
                Gateway.Path a = ga.open(I1);
                a.register(0, K1);
                a.reserve(K1, PrType.EXCLUSIVE_ACCESS);
            }
            try (Gateway again = new Gateway(cluster, "A", 1)) {
                Gateway.Path a = again.open(I1);
                assertThat(a.write().status()).as("the holder, back through the restarted gateway").isEqualTo(ScsiStatus.GOOD);
                assertThat(b.write().status()).isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
                assertThat(BigEndian.u32(Nexus.ok(a.prin(0)).data(), 0))
                        .as("a gateway restart is no power on of the LU: PRgeneration goes on").isEqualTo(1);
            }
        }
    }

    @Test
    void partitionedGatewayAnswersBusyUntilItReReads() throws Exception {
        try (Gateway ga = new Gateway(cluster, "A", 1); Gateway gb = new Gateway(cluster, "B", 2)) {
            Gateway.Path a = ga.open(I1);
            Gateway.Path b = gb.open(I2);
            assertThat(b.write().status()).isEqualTo(ScsiStatus.GOOD);
            cluster.partition("B");
            assertThat(b.write().status()).isEqualTo(ScsiStatus.BUSY);
            assertThat(b.prin(0).status()).isEqualTo(ScsiStatus.BUSY);
            assertThat(b.register(0, K2).status()).isEqualTo(ScsiStatus.BUSY);
            assertThat(b.none(Harness.cdb(0x12, 0, 0, 0, 36, 0)).status()).as("INQUIRY never conflicts")
                    .isEqualTo(ScsiStatus.GOOD);
            a.register(0, K1);
            a.reserve(K1, PrType.EXCLUSIVE_ACCESS); // while B cannot hear of it
            cluster.heal("B");
            assertThat(eventually(b::write)).as("after the re-read B enforces A's reservation")
                    .isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
        }
    }

    @Test
    void aGatewayThatStopsAckingIsFencedBeforeTheWriterReturns() throws Exception {
        try (Gateway ga = new Gateway(cluster, "A", 1); Gateway gb = new Gateway(cluster, "B", 2)) {
            ga.device.reservations().shared().notifyTimeout(Duration.ofMillis(300));
            Gateway.Path a = ga.open(I1);
            Gateway.Path b = gb.open(I2);
            cluster.stopAcking("B");
            a.register(0, K1);
            assertThat(a.reserve(K1, PrType.EXCLUSIVE_ACCESS).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(cluster.fenced()).isEqualTo(1);
            assertThat(b.read().status()).as("fenced: no answer from a stale copy").isEqualTo(ScsiStatus.BUSY);
            cluster.heal("B");
            assertThat(eventually(b::read)).isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
        }
    }

    /**
     * Linearisability of racing writers: in each round two registrants, one per gateway, RESERVE at the same
     * moment; any serial order gives exactly one GOOD and one RESERVATION CONFLICT, and both gateways then agree
     * on the holder. A lost compare-and-set must be decided again from the winner's state, never overwrite it.
     */
    @Test
    void racingReservesOnBothGatewaysHaveOneWinner() throws Exception {
        try (Gateway ga = new Gateway(cluster, "A", 1); Gateway gb = new Gateway(cluster, "B", 2)) {
            Gateway.Path a = ga.open(I1);
            Gateway.Path b = gb.open(I2);
            a.register(0, K1);
            b.register(0, K2);
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                for (int round = 0; round < 40; round++) {
                    CyclicBarrier start = new CyclicBarrier(2);
                    Future<Integer> fa = pool.submit(() -> {
                        start.await();
                        return a.reserve(K1, PrType.EXCLUSIVE_ACCESS).status();
                    });
                    Future<Integer> fb = pool.submit(() -> {
                        start.await();
                        return b.reserve(K2, PrType.EXCLUSIVE_ACCESS).status();
                    });
                    List<Integer> got = new ArrayList<>(List.of(fa.get(), fb.get()));
                    assertThat(got).containsExactlyInAnyOrder(ScsiStatus.GOOD, ScsiStatus.RESERVATION_CONFLICT);
                    Gateway.Path winner = got.get(0) == ScsiStatus.GOOD ? a : b;
                    Gateway.Path loser = winner == a ? b : a;
                    assertThat(loser.write().status()).isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
                    assertThat(winner.write().status()).isEqualTo(ScsiStatus.GOOD);
                    long key = winner == a ? K1 : K2;
                    assertThat(winner.prout(2, PrType.EXCLUSIVE_ACCESS, key, 0, 0).status()).isEqualTo(ScsiStatus.GOOD);
                }
            } finally {
                pool.shutdownNow();
            }
        }
    }

    /** Racing REGISTERs from both gateways: every one lands, and PRgeneration counts each once (SPC-4 §6.15.2). */
    @Test
    void racingRegistersAllLand() throws Exception {
        try (Gateway ga = new Gateway(cluster, "A", 1); Gateway gb = new Gateway(cluster, "B", 2)) {
            int n = 16;
            ExecutorService pool = Executors.newFixedThreadPool(n); // one thread per party of the barrier
            try {
                CyclicBarrier start = new CyclicBarrier(n);
                List<Future<Integer>> all = new ArrayList<>();
                List<Long> expected = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    Gateway.Path p = (i % 2 == 0 ? ga : gb).open("iqn.2026-12.io.hostwide:r" + i);
                    long key = 0x100 + i;
                    expected.add(key);
                    all.add(pool.submit(() -> {
                        start.await();
                        return p.register(0, key).status();
                    }));
                }
                for (Future<Integer> f : all) {
                    assertThat(f.get()).isEqualTo(ScsiStatus.GOOD);
                }
                Gateway.Path observer = gb.open(I1);
                assertThat(keys(observer)).containsExactlyInAnyOrderElementsOf(expected);
                assertThat(keys(ga.open(I1))).containsExactlyElementsOf(keys(observer));
                assertThat(BigEndian.u32(Nexus.ok(observer.prin(0)).data(), 0)).isEqualTo(n);
            } finally {
                pool.shutdownNow();
            }
        }
    }

    /**
     * SPC-4 §5.13.11.4.4 across gateways: PREEMPT AND ABORT on B aborts the preempted nexus's tasks on A, and B
     * returns GOOD only after A's aborts completed (A acknowledges the notify once they are gone).
     */
    @Test
    void preemptAndAbortAbortsOnTheOtherGatewayBeforeItReturns() throws Exception {
        try (Gateway ga = new Gateway(cluster, "A", 1); Gateway gb = new Gateway(cluster, "B", 2)) {
            Gateway.Path a = ga.open(I1);
            Gateway.Path b = gb.open(I2);
            a.register(0, K1);
            a.reserve(K1, PrType.EXCLUSIVE_ACCESS);
            b.register(0, K2);
            List<Object> aborted = new java.util.concurrent.CopyOnWriteArrayList<>();
            java.util.concurrent.atomic.AtomicBoolean abortsDone = new java.util.concurrent.atomic.AtomicBoolean();
            ga.device.reservations().remoteAborter((nexuses, then) -> {
                aborted.addAll(nexuses);
                Thread.ofPlatform().start(() -> { // completes later, on another thread, like a real abort
                    abortsDone.set(true);
                    then.run();
                });
            });
            assertThat(b.prout(5, PrType.EXCLUSIVE_ACCESS, K2, K1, 0).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(abortsDone).as("A's aborts finished before B's PREEMPT AND ABORT completed").isTrue();
            assertThat(aborted).containsExactly(a.session());
            assertThat(a.drainUnitAttentions()).containsExactly(Asc.REGISTRATIONS_PREEMPTED);
        }
    }

    /**
     * EXTENDED COPY checks its copy targets' reservations itself (SPC-4 §6.4); a copy target whose shared state
     * cannot be trusted is BUSY like any other command the check judges, not RESERVATION CONFLICT.
     */
    @Test
    void extendedCopyFromAnUntrustedCopyTargetIsBusy() throws Exception {
        try (Gateway ga = new Gateway(cluster, "A", 1)) {
            io.hostwide.tcm.lu.Device local = ga.core.addDevice("local1",
                    new io.hostwide.tcm.backstore.RamBackstore(Harness.BLOCKS * Harness.BLOCK, Harness.BLOCK),
                    new io.hostwide.tcm.lu.DeviceAttributes());
            ga.port.addLun(1, local);
            Gateway.Path a = ga.open(I1);
            byte[] p = ExtendedCopyTest.list(1, 0, new long[] {ga.device.naa(), local.naa()}, new int[][] {{0, 1, 1, 0, 10}});
            java.util.function.Supplier<TestFabric.Result> xcopy = () -> ga.fabric.run(a.session(),
                    io.hostwide.scsi.spec.LunAddress.encode(1), ExtendedCopyTest.xcopyCdb(p.length), p.length,
                    io.hostwide.tcm.spi.TargetCommand.DIR_WRITE, p);
            assertThat(xcopy.get().status()).isEqualTo(ScsiStatus.GOOD);
            cluster.partition("A");
            assertThat(xcopy.get().status()).isEqualTo(ScsiStatus.BUSY);
        }
    }

    private static List<Long> keys(Gateway.Path p) {
        byte[] d = Nexus.ok(p.prin(0)).data();
        List<Long> k = new ArrayList<>();
        for (int i = 0; i < BigEndian.u32(d, 4) / 8; i++) {
            k.add(BigEndian.s64(d, 8 + 8 * i));
        }
        return k;
    }

    /** Repeats {@code cmd} while it answers BUSY (the background re-read), for at most 10 s; the last status. */
    private static int eventually(java.util.function.Supplier<TestFabric.Result> cmd) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        int status;
        while ((status = cmd.get().status()) == ScsiStatus.BUSY && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        return status;
    }
}
