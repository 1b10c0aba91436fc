package io.hostwide.tcm;

import io.hostwide.scsi.spec.Asc;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.tcm.alua.GatewayAlua;
import io.hostwide.tcm.lu.AluaAccessState;
import io.hostwide.tcm.lu.InMemoryReservationStore;
import io.hostwide.tcm.lu.TargetPortGroup;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import io.hostwide.scsi.spec.LunAddress;
import io.hostwide.scsi.spec.TaskAttribute;
import io.hostwide.tcm.spi.TargetCommand;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Implicit ALUA across two in-process gateways that share reservations through an {@link InMemoryReservationStore}
 * (the store's notify is the handover channel) and a fake RBD lock ({@link GatewayAluaTest.FakeLock}): a write
 * through the gateway without the lock waits while the holder hands the lock over — nobody is fenced, the
 * Active/Optimized group stays where it was, no unit attention is raised — and the lock comes back the same way.
 */
class GatewayHandoverTest {
    private static final long NEVER = 3_600_000;

    /** A {@link Gateway} whose LUN is in target port group {@code tag}, with the ALUA policy on the fake lock. */
    static final class AluaGateway implements AutoCloseable {
        final Gateway g;
        final GatewayAlua alua;

        AluaGateway(InMemoryReservationStore cluster, GatewayAluaTest.FakeImage image, String name, int tag)
                throws Exception {
            this(cluster, image, name, tag, new io.hostwide.tcm.backstore.RamBackstore(
                    Harness.BLOCKS * Harness.BLOCK, Harness.BLOCK));
        }

        AluaGateway(InMemoryReservationStore cluster, GatewayAluaTest.FakeImage image, String name, int tag,
                    io.hostwide.tcm.spi.Backstore storage) throws Exception {
            g = new Gateway(cluster.client(name), name, tag, storage);
            TargetPortGroup group = g.device.alua().addGroup(tag, name);
            g.device.alua().assign(g.port.luns().get(0), group);
            alua = GatewayAlua.start(g.device, new GatewayAluaTest.FakeLock(image, name), group, name,
                    GatewayAlua.Mode.IMPLICIT, List.of(g.port.relativePortId()), NEVER);
        }

        int state(int groupId) { return g.device.alua().group(groupId).accessState().state(); }

        @Override
        public void close() {
            alua.close();
            g.close();
        }
    }

    @Test
    void aWriteThroughTheOtherGatewayWaitsForAHandoverThatFencesNobodyAndMovesNoState() throws Exception {
        InMemoryReservationStore cluster = new InMemoryReservationStore();
        GatewayAluaTest.FakeImage image = new GatewayAluaTest.FakeImage();
        try (AluaGateway a = new AluaGateway(cluster, image, "gw-a", 1);
             AluaGateway b = new AluaGateway(cluster, image, "gw-b", 2)) {
            a.alua.poll();
            b.alua.poll();
            Gateway.Path pa = a.g.open("iqn.2026-12.io.hostwide:host1");
            Gateway.Path pb = b.g.open("iqn.2026-12.io.hostwide:host2");
            pa.drainUnitAttentions();
            pb.drainUnitAttentions();
            assertThat(a.alua.owner()).isTrue();
            assertThat(b.state(1)).isEqualTo(AluaAccessState.ACTIVE_OPTIMIZED);
            assertThat(b.state(2)).isEqualTo(AluaAccessState.ACTIVE_NON_OPTIMIZED);

            assertThat(pb.write().status()).as("waits for the handover, then runs").isEqualTo(ScsiStatus.GOOD);
            assertThat(b.alua.owner()).isTrue();
            assertThat(a.alua.owner()).as("A let the lock go").isFalse();
            assertThat(image.breaks).as("handed over, not broken: nobody fenced").isZero();
            assertThat(image.table).containsEntry(GatewayAlua.OWNER_KEY, "1");

            assertThat(pa.write().status()).as("and back").isEqualTo(ScsiStatus.GOOD);
            assertThat(a.alua.owner()).isTrue();
            assertThat(b.alua.owner()).isFalse();
            assertStatesUnmovedAndNoUnitAttention(a, b, pa, pb);
            assertThat(image.breaks).isZero();
        }
    }

    /** After polls on both: group 1 (gw-a, the recorded owner) still Active/Optimized, 2 not, and no unit attention. */
    private static void assertStatesUnmovedAndNoUnitAttention(AluaGateway a, AluaGateway b, Gateway.Path pa,
                                                              Gateway.Path pb) {
        a.alua.poll();
        b.alua.poll();
        for (AluaGateway x : List.of(a, b)) {
            assertThat(x.state(1)).as("Active/Optimized stays with the recorded owner")
                    .isEqualTo(AluaAccessState.ACTIVE_OPTIMIZED);
            assertThat(x.state(2)).isEqualTo(AluaAccessState.ACTIVE_NON_OPTIMIZED);
        }
        assertThat(pa.drainUnitAttentions()).as("no state changed: no unit attention").isEmpty();
        assertThat(pb.drainUnitAttentions()).isEmpty();
    }

    @Test
    void writesOnBothGatewaysAtOnceAllComplete() throws Exception {
        InMemoryReservationStore cluster = new InMemoryReservationStore();
        GatewayAluaTest.FakeImage image = new GatewayAluaTest.FakeImage();
        try (AluaGateway a = new AluaGateway(cluster, image, "gw-a", 1);
             AluaGateway b = new AluaGateway(cluster, image, "gw-b", 2)) {
            a.alua.poll();
            b.alua.poll();
            Gateway.Path pa = a.g.open("iqn.2026-12.io.hostwide:host1");
            Gateway.Path pb = b.g.open("iqn.2026-12.io.hostwide:host2");
            pa.drainUnitAttentions();
            pb.drainUnitAttentions();
            // one thread per path, each writing in turn: the lock goes back and forth under them
            CompletableFuture<Integer> fa = CompletableFuture.supplyAsync(() -> writes(pa, 20));
            CompletableFuture<Integer> fb = CompletableFuture.supplyAsync(() -> writes(pb, 20));
            assertThat(fa.join()).as("GOOD writes through A").isEqualTo(20);
            assertThat(fb.join()).as("GOOD writes through B").isEqualTo(20);
            assertThat(image.breaks).isZero();
        }
    }

    private static int writes(Gateway.Path p, int n) {
        int good = 0;
        for (int i = 0; i < n; i++) {
            TestFabric.Result r = p.write();
            if (r.status() == ScsiStatus.GOOD) {
                good++;
            } else {
                throw new AssertionError("write " + i + " ended " + Integer.toHexString(r.ascAscq()));
            }
        }
        return good;
    }

    @Test
    void aSilentHolderIsFencedAndTheTakerBecomesTheOwner() throws Exception {
        InMemoryReservationStore cluster = new InMemoryReservationStore();
        GatewayAluaTest.FakeImage image = new GatewayAluaTest.FakeImage();
        try (AluaGateway a = new AluaGateway(cluster, image, "gw-a", 1);
             AluaGateway b = new AluaGateway(cluster, image, "gw-b", 2)) {
            a.alua.poll();
            b.alua.poll();
            Gateway.Path pb = b.g.open("iqn.2026-12.io.hostwide:host2");
            pb.drainUnitAttentions();
            b.alua.releaseTimeout(java.time.Duration.ofMillis(100));
            cluster.stopAcking("gw-a"); // A hangs: its watch no longer answers; the store fences it
            assertThat(pb.write().status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(image.breaks).as("B broke A's lock").isEqualTo(1);
            assertThat(image.table).containsEntry(GatewayAlua.OWNER_KEY, "2");
            assertThat(b.state(2)).isEqualTo(AluaAccessState.ACTIVE_OPTIMIZED);
            assertThat(pb.drainUnitAttentions()).contains(Asc.ASYMMETRIC_ACCESS_STATE_CHANGED);
        }
    }

    /**
     * The holder lets the lock go only after the writes it admitted ended (one still in the backstore would reach
     * librbd after rbd_lock_release and fail EROFS), but it acknowledges the request before that: its release may
     * then take longer than the asking gateway's release timeout (its admitted writes run on; on a loaded host
     * rbd_lock_release too can take seconds) without being fenced, and Active/Optimized stays where it was, with no
     * unit attention on either gateway (a holder fenced for its slowness failed libiscsi's MultipathIO.Simple in CI
     * with ASYMMETRIC ACCESS STATE CHANGED). Shown without timing: the request is acknowledged while the holder still
     * holds the lock, its write held in the backstore.
     */
    @Test
    void aHandoverWaitsForTheHoldersWritesAndASlowHolderIsNotFenced() throws Exception {
        InMemoryReservationStore cluster = new InMemoryReservationStore();
        GatewayAluaTest.FakeImage image = new GatewayAluaTest.FakeImage();
        GatedBackstore gated = new GatedBackstore(Harness.BLOCKS * Harness.BLOCK, Harness.BLOCK);
        try (AluaGateway a = new AluaGateway(cluster, image, "gw-a", 1, gated);
             AluaGateway b = new AluaGateway(cluster, image, "gw-b", 2)) {
            a.alua.poll();
            b.alua.poll();
            for (AluaGateway x : List.of(a, b)) {
                x.alua.releaseTimeout(java.time.Duration.ofMinutes(10)); // the acknowledgement is the point
                x.alua.lendBound(java.time.Duration.ofMinutes(10)); // the holder's own writes end the wait
            }
            Gateway.Path pa = a.g.open("iqn.2026-12.io.hostwide:host1");
            Gateway.Path pb = b.g.open("iqn.2026-12.io.hostwide:host2");
            pa.drainUnitAttentions();
            pb.drainUnitAttentions();
            try {
                CompletableFuture<TestFabric.Result> onA = a.g.fabric.start(pa.session(), LunAddress.encode(0),
                        Harness.write10(7, 1), TaskAttribute.SIMPLE, Harness.BLOCK, TargetCommand.DIR_WRITE,
                        Harness.pattern(Harness.BLOCK, 7));
                assertThat(gated.nextArrival()).as("A's write is in the backstore").isEqualTo(7);
                CompletableFuture<TestFabric.Result> onB = CompletableFuture.supplyAsync(pb::write);
                for (int i = 0; i < 2000 && a.alua.owner(); i++) {
                    Thread.sleep(5);
                }
                assertThat(a.alua.owner()).as("A was asked for the lock").isFalse();
                for (int i = 0; i < 2000 && cluster.acknowledgedNotifies() == 0; i++) {
                    Thread.sleep(5);
                }
                assertThat(cluster.acknowledgedNotifies()).as("A acknowledged B's request").isPositive();
                synchronized (image) {
                    assertThat(image.holder).as("not released while A's write runs").isEqualTo("gw-a");
                }
                assertThat(onB).as("B's write still waits for the lock").isNotDone();
                assertThat(image.breaks).as("nobody fenced").isZero();
                gated.hold = false;
                gated.release(1);
                assertThat(onA.get(30, TimeUnit.SECONDS).status()).isEqualTo(ScsiStatus.GOOD);
                assertThat(onB.get(30, TimeUnit.SECONDS).status()).isEqualTo(ScsiStatus.GOOD);
                assertThat(b.alua.owner()).isTrue();
                assertThat(image.breaks).as("handed over, nobody fenced").isZero();
                assertStatesUnmovedAndNoUnitAttention(a, b, pa, pb);
            } finally {
                gated.unblock(); // an assertion that failed above must not leave the device waiting at close
            }
        }
    }

    /**
     * A holder whose watch is already gone (a gateway dead longer than its watch timeout) acknowledges nothing and
     * the notify waits for nobody: the lock, still held after the lend bound, is broken and the taker records itself
     * as the owner.
     */
    @Test
    void aLockHeldByAClientNoLongerWatchingIsBrokenAfterTheReleaseTimeout() throws Exception {
        InMemoryReservationStore cluster = new InMemoryReservationStore();
        GatewayAluaTest.FakeImage image = new GatewayAluaTest.FakeImage();
        try (AluaGateway b = new AluaGateway(cluster, image, "gw-b", 2)) {
            synchronized (image) {
                image.holder = "gw-gone"; // holds the lock, watches nothing
                image.table.put(GatewayAlua.OWNER_KEY, "1");
            }
            b.alua.poll();
            Gateway.Path pb = b.g.open("iqn.2026-12.io.hostwide:host2");
            pb.drainUnitAttentions();
            b.alua.releaseTimeout(java.time.Duration.ofMillis(50));
            b.alua.lendBound(java.time.Duration.ofMillis(50));
            assertThat(pb.write().status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(image.breaks).isEqualTo(1);
            assertThat(image.table).containsEntry(GatewayAlua.OWNER_KEY, "2");
            assertThat(b.state(2)).isEqualTo(AluaAccessState.ACTIVE_OPTIMIZED);
        }
    }
}
