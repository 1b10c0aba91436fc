package io.hostwide.tcm;

import io.hostwide.scsi.spec.Asc;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.scsi.spec.SenseKey;
import io.hostwide.tcm.alua.GatewayAlua;
import io.hostwide.tcm.lu.AluaAccessState;
import io.hostwide.tcm.lu.DeviceAttributes;
import io.hostwide.tcm.lu.TargetPortGroup;
import io.hostwide.tcm.spi.SharedOwnership;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link GatewayAlua} with two "gateways" (two cores in one JVM) sharing a fake lock and table, as two serve processes
 * share an RBD image's exclusive lock and metadata: who is Active/Optimized, REPORT TARGET PORT GROUPS alike on both,
 * the implicit takeover on a write, the explicit one on SET TARGET PORT GROUPS, and the loser's state change UA.
 * Polls are driven by hand ({@link GatewayAlua#poll()}); the background poll interval is an hour.
 */
class GatewayAluaTest {
    private static final long NEVER = 3_600_000;

    /** The cluster side: one lock holder and one table, as the image's exclusive lock and metadata. */
    static final class FakeImage {
        String holder;
        final Map<String, String> table = new TreeMap<>();
        boolean refuseTakeover;
        /** The clients that have the image open (its header's watchers); a killed gateway's leaves. */
        final Set<String> live = new HashSet<>();
        /** Locks broken (the holder fenced), as opposed to handed over. */
        int breaks;
        /** When set, a takeover (break) blocks until it opens, as one stuck on an unreachable cluster. */
        volatile java.util.concurrent.CountDownLatch takeGate;
    }

    /** One gateway's client of the fake image. */
    static final class FakeLock implements SharedOwnership {
        final FakeImage image;
        final String me;

        FakeLock(FakeImage image, String me) {
            this.image = image;
            this.me = me;
            synchronized (image) {
                image.live.add(me);
            }
        }

        @Override
        public void remove(String key) {
            synchronized (image) {
                image.table.remove(key);
            }
        }

        @Override
        public void release() {
            synchronized (image) {
                if (me.equals(image.holder)) {
                    image.holder = null;
                }
            }
        }

        @Override
        public String clientId() { return me; }

        @Override
        public Set<String> liveClients() {
            synchronized (image) {
                return new HashSet<>(image.live);
            }
        }

        @Override
        public boolean isOwner() {
            synchronized (image) {
                return me.equals(image.holder);
            }
        }

        @Override
        public boolean anyOwner() {
            synchronized (image) {
                return image.holder != null;
            }
        }

        @Override
        public void take() throws IOException {
            java.util.concurrent.CountDownLatch gate = image.takeGate;
            if (gate != null) {
                try {
                    gate.await();
                } catch (InterruptedException e) {
                    throw new IOException("interrupted");
                }
            }
            synchronized (image) {
                if (image.refuseTakeover) {
                    throw new IOException("rbd_lock_acquire failed: EROFS");
                }
                if (image.holder != null && !me.equals(image.holder)) {
                    image.breaks++; // breaking the previous holder's lock fences it
                }
                image.holder = me;
            }
        }

        @Override
        public boolean tryTake() {
            synchronized (image) {
                if (image.holder == null) {
                    image.holder = me;
                }
                return me.equals(image.holder);
            }
        }

        @Override
        public Map<String, String> entries(String prefix) {
            synchronized (image) {
                Map<String, String> out = new TreeMap<>();
                image.table.forEach((k, v) -> {
                    if (k.startsWith(prefix)) {
                        out.put(k, v);
                    }
                });
                return out;
            }
        }

        @Override
        public void put(String key, String value) {
            synchronized (image) {
                image.table.put(key, value);
            }
        }

        @Override
        public String identity() { return "fake:rbd/img"; }
    }

    /** One gateway: a core whose port has relative id = TPGT = port group, its LUN in that group. */
    static final class Gw implements AutoCloseable {
        final Harness h;
        final Nexus nexus;
        final GatewayAlua alua;
        final TargetPortGroup group;

        Gw(FakeImage image, String name, int portGroup, GatewayAlua.Mode mode) {
            h = new Harness(new DeviceAttributes().unitSerial("0123456789abcdef0123456789abcdef"),
                    new io.hostwide.tcm.backstore.RamBackstore(Harness.BLOCKS * Harness.BLOCK, Harness.BLOCK));
            group = h.device.alua().addGroup(portGroup, name);
            h.device.alua().assign(h.port.luns().get(0), group);
            nexus = Nexus.first(h);
            alua = GatewayAlua.start(h.device, new FakeLock(image, name), group, name, mode,
                    List.of(h.port.relativePortId()), NEVER);
        }

        byte[] rtpg() {
            return Nexus.ok(nexus.in(AluaTest.rtpg(0, 1024), 1024)).data();
        }

        int state(int groupId) {
            return h.device.alua().group(groupId).accessState().state();
        }

        @Override
        public void close() {
            alua.close();
            h.close();
        }
    }

    @Test
    void theFirstGatewayOwnsAndBothReportTheSameGroups() {
        FakeImage image = new FakeImage();
        try (Gw a = new Gw(image, "gw-a", 1, GatewayAlua.Mode.IMPLICIT);
             Gw b = new Gw(image, "gw-b", 2, GatewayAlua.Mode.IMPLICIT)) {
            a.alua.poll();
            assertThat(a.alua.owner()).isTrue();
            assertThat(b.alua.owner()).isFalse();
            assertThat(image.table).containsEntry(GatewayAlua.OWNER_KEY, "1")
                    .containsEntry(GatewayAlua.GATEWAY_PREFIX + "1", "name=gw-a;rtpi=1;client=gw-a")
                    .containsEntry(GatewayAlua.GATEWAY_PREFIX + "2", "name=gw-b;rtpi=1;client=gw-b");
            assertThat(a.state(1)).isEqualTo(AluaAccessState.ACTIVE_OPTIMIZED);
            assertThat(a.state(2)).isEqualTo(AluaAccessState.ACTIVE_NON_OPTIMIZED);
            assertThat(b.state(1)).isEqualTo(AluaAccessState.ACTIVE_OPTIMIZED);
            assertThat(b.state(2)).isEqualTo(AluaAccessState.ACTIVE_NON_OPTIMIZED);
            a.nexus.drainUnitAttentions();
            b.nexus.drainUnitAttentions();
            assertThat(b.rtpg()).as("REPORT TARGET PORT GROUPS alike on both gateways").isEqualTo(a.rtpg());
            // groups 0 (the default, no port), 1 (AO, one port), 2 (ANO, one port), by id
            byte[] d = a.rtpg();
            assertThat(d).hasSize(4 + 8 + 12 + 12);
            assertThat(d[12] & 0x0F).isEqualTo(AluaAccessState.ACTIVE_OPTIMIZED);
            assertThat(d[15]).isEqualTo((byte) 1);
            assertThat(d[24] & 0x0F).isEqualTo(AluaAccessState.ACTIVE_NON_OPTIMIZED);
            assertThat(d[27]).isEqualTo((byte) 2);
        }
    }

    /**
     * The second gateway comes up while the first already serves initiators: its group appears on the first in the
     * state it has (Active/Non-optimized), which is no change of state for any nexus, so no unit attention (one here
     * failed libiscsi's MultipathIO.Simple, whose sessions log in as soon as both gateways listen).
     */
    @Test
    void aGatewayThatComesUpLaterRaisesNoUnitAttentionOnTheFirst() {
        FakeImage image = new FakeImage();
        try (Gw a = new Gw(image, "gw-a", 1, GatewayAlua.Mode.IMPLICIT)) {
            a.alua.poll();
            assertThat(a.alua.owner()).isTrue();
            a.nexus.drainUnitAttentions();
            try (Gw b = new Gw(image, "gw-b", 2, GatewayAlua.Mode.IMPLICIT)) {
                a.alua.poll();
                assertThat(a.state(2)).as("gw-b's group, learnt from the table").isEqualTo(
                        AluaAccessState.ACTIVE_NON_OPTIMIZED);
                assertThat(a.state(1)).isEqualTo(AluaAccessState.ACTIVE_OPTIMIZED);
                assertThat(a.nexus.drainUnitAttentions()).as("no state changed for gw-a's initiators").isEmpty();
                b.nexus.drainUnitAttentions(); // its own LUN's move into group 2 (INQUIRY DATA HAS CHANGED)
                assertThat(b.rtpg()).as("REPORT TARGET PORT GROUPS alike on both gateways").isEqualTo(a.rtpg());
            }
        }
    }

    @Test
    void implicitAWriteThroughTheNonOwnerMovesTheLockAndTheLoserIsTold() throws Exception {
        FakeImage image = new FakeImage();
        try (Gw a = new Gw(image, "gw-a", 1, GatewayAlua.Mode.IMPLICIT);
             Gw b = new Gw(image, "gw-b", 2, GatewayAlua.Mode.IMPLICIT)) {
            a.alua.poll();
            a.nexus.drainUnitAttentions();
            b.nexus.drainUnitAttentions();
            assertThat(b.nexus.in(Harness.read10(0, 1), 512).status()).as("reads need no lock")
                    .isEqualTo(ScsiStatus.GOOD);
            // no reservation store to ask A through: B breaks A's lock (fencing it) while the write waits, then
            // records itself as the owner
            TestFabric.Result w = b.nexus.out(Harness.write10(0, 1), Harness.pattern(512, 1));
            assertThat(w.status()).as("the write waited for the takeover").isEqualTo(ScsiStatus.GOOD);
            assertThat(b.alua.owner()).isTrue();
            assertThat(image.breaks).isEqualTo(1);
            assertThat(b.state(2)).isEqualTo(AluaAccessState.ACTIVE_OPTIMIZED);
            assertThat(b.state(1)).isEqualTo(AluaAccessState.ACTIVE_NON_OPTIMIZED);
            assertThat(image.table).containsEntry(GatewayAlua.OWNER_KEY, "2");
            b.nexus.drainUnitAttentions();
            assertThat(b.nexus.out(Harness.write10(0, 1), Harness.pattern(512, 1)).status())
                    .isEqualTo(ScsiStatus.GOOD);

            a.alua.poll(); // the old owner notices it lost the lock
            assertThat(a.alua.owner()).isFalse();
            assertThat(a.state(1)).isEqualTo(AluaAccessState.ACTIVE_NON_OPTIMIZED);
            assertThat(a.state(2)).isEqualTo(AluaAccessState.ACTIVE_OPTIMIZED);
            assertThat(a.nexus.drainUnitAttentions()).contains(Asc.ASYMMETRIC_ACCESS_STATE_CHANGED);
            assertThat(b.rtpg()).isEqualTo(a.rtpg());
        }
    }

    @Test
    void aWriteWhoseTakeoverOutlastsItsBoundEndsTransitioning() {
        FakeImage image = new FakeImage();
        try (Gw a = new Gw(image, "gw-a", 1, GatewayAlua.Mode.IMPLICIT);
             Gw b = new Gw(image, "gw-b", 2, GatewayAlua.Mode.IMPLICIT)) {
            a.alua.poll();
            b.nexus.drainUnitAttentions();
            image.takeGate = new java.util.concurrent.CountDownLatch(1); // the break hangs, as on a lost cluster
            b.alua.writeWait(java.time.Duration.ofMillis(50));
            TestFabric.Result w = b.nexus.out(Harness.write10(0, 1), Harness.pattern(512, 1));
            assertThat(w.senseKey()).isEqualTo(SenseKey.NOT_READY);
            assertThat(w.ascAscq()).isEqualTo(Asc.LOGICAL_UNIT_NOT_READY_ASYMMETRIC_ACCESS_STATE_TRANSITION);
            assertThat(b.alua.parkedWrites()).isZero();
            image.takeGate.countDown();
        }
    }

    /** SAM-5 §7.2: task management does not wait out a parked write's bound; the write never runs. */
    @Test
    void aParkedWriteAbortedByALogicalUnitResetLeavesAtOnce() throws Exception {
        FakeImage image = new FakeImage();
        try (Gw a = new Gw(image, "gw-a", 1, GatewayAlua.Mode.IMPLICIT);
             Gw b = new Gw(image, "gw-b", 2, GatewayAlua.Mode.IMPLICIT)) {
            a.alua.poll();
            b.nexus.drainUnitAttentions();
            image.takeGate = new java.util.concurrent.CountDownLatch(1); // the takeover hangs
            java.util.concurrent.CompletableFuture<TestFabric.Result> w = b.h.fabric.start(b.nexus.session,
                    io.hostwide.scsi.spec.LunAddress.encode(0), Harness.write10(0, 1),
                    io.hostwide.scsi.spec.TaskAttribute.SIMPLE, 512, io.hostwide.tcm.spi.TargetCommand.DIR_WRITE,
                    Harness.pattern(512, 1));
            for (int i = 0; i < 1000 && b.alua.parkedWrites() == 0; i++) {
                Thread.sleep(5);
            }
            assertThat(b.alua.parkedWrites()).as("the write waits for the lock").isEqualTo(1);
            java.util.concurrent.CompletableFuture<io.hostwide.tcm.tmf.TmfResult> reset =
                    new java.util.concurrent.CompletableFuture<>();
            b.h.core.taskManagement().request(b.nexus.session, io.hostwide.tcm.tmf.TmfFunction.LOGICAL_UNIT_RESET,
                    io.hostwide.scsi.spec.LunAddress.encode(0), 0, reset::complete);
            assertThat(reset.get(5, java.util.concurrent.TimeUnit.SECONDS).response())
                    .as("answered while the takeover still hangs").isEqualTo(io.hostwide.tcm.tmf.TmfResponse.FUNCTION_COMPLETE);
            assertThat(w.isDone()).as("the aborted write was delivered before the reset's response").isTrue();
            assertThat(b.alua.parkedWrites()).isZero();
            image.takeGate.countDown();
        }
    }

    @Test
    void aWriteWhoseTakeoverFailsEndsTransitioning() {
        FakeImage image = new FakeImage();
        try (Gw a = new Gw(image, "gw-a", 1, GatewayAlua.Mode.IMPLICIT);
             Gw b = new Gw(image, "gw-b", 2, GatewayAlua.Mode.IMPLICIT)) {
            a.alua.poll();
            b.nexus.drainUnitAttentions();
            synchronized (image) {
                image.refuseTakeover = true;
            }
            b.alua.writeWait(java.time.Duration.ofMillis(50));
            TestFabric.Result w = b.nexus.out(Harness.write10(0, 1), Harness.pattern(512, 1));
            assertThat(w.ascAscq()).isEqualTo(Asc.LOGICAL_UNIT_NOT_READY_ASYMMETRIC_ACCESS_STATE_TRANSITION);
            assertThat(a.alua.owner()).isTrue();
        }
    }

    @Test
    void explicitStandbyUntilSetTargetPortGroupsTakesTheLock() throws Exception {
        FakeImage image = new FakeImage();
        try (Gw a = new Gw(image, "gw-a", 1, GatewayAlua.Mode.EXPLICIT);
             Gw b = new Gw(image, "gw-b", 2, GatewayAlua.Mode.EXPLICIT)) {
            a.alua.poll();
            b.alua.poll();
            b.nexus.drainUnitAttentions();
            assertThat(b.state(2)).isEqualTo(AluaAccessState.STANDBY);
            TestFabric.Result w = b.nexus.out(Harness.write10(0, 1), Harness.pattern(512, 1));
            assertThat(w.ascAscq()).isEqualTo(Asc.LOGICAL_UNIT_NOT_READY_TARGET_PORT_IN_STANDBY_STATE);
            assertThat(b.alua.owner()).as("explicit: a write moves nothing").isFalse();

            byte[] p = {0, 0, 0, 0, AluaAccessState.ACTIVE_OPTIMIZED, 0, 0, 2};
            assertThat(b.nexus.out(AluaTest.stpg(8), p).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(b.alua.owner()).as("SET TARGET PORT GROUPS completes once the lock is taken").isTrue();
            assertThat(b.state(2)).isEqualTo(AluaAccessState.ACTIVE_OPTIMIZED);
            b.nexus.drainUnitAttentions();
            assertThat(b.nexus.out(Harness.write10(0, 1), Harness.pattern(512, 1)).status())
                    .isEqualTo(ScsiStatus.GOOD);
            a.alua.poll();
            assertThat(a.state(1)).isEqualTo(AluaAccessState.STANDBY);
        }
    }

    @Test
    void aTakeoverThatFailsFailsSetTargetPortGroups() {
        FakeImage image = new FakeImage();
        try (Gw a = new Gw(image, "gw-a", 1, GatewayAlua.Mode.EXPLICIT);
             Gw b = new Gw(image, "gw-b", 2, GatewayAlua.Mode.EXPLICIT)) {
            b.alua.poll();
            b.nexus.drainUnitAttentions();
            synchronized (image) {
                image.refuseTakeover = true;
            }
            byte[] p = {0, 0, 0, 0, AluaAccessState.ACTIVE_OPTIMIZED, 0, 0, 2};
            TestFabric.Result r = b.nexus.out(AluaTest.stpg(8), p);
            assertThat(r.senseKey()).isEqualTo(SenseKey.HARDWARE_ERROR);
            assertThat(r.ascAscq()).isEqualTo(Asc.SET_TARGET_PORT_GROUPS_COMMAND_FAILED);
            assertThat(b.alua.owner()).isFalse();
            assertThat(b.state(2)).isEqualTo(AluaAccessState.STANDBY);
            assertThat(a.alua.owner()).isTrue();
        }
    }

    /** Issue 16: a gateway that stops cleanly leaves the table and hands the lock over without a fence. */
    @Test
    void aCleanStopRemovesTheEntryReleasesTheLockAndASurvivorTakesIt() {
        FakeImage image = new FakeImage();
        Gw a = new Gw(image, "gw-a", 1, GatewayAlua.Mode.EXPLICIT); // first up: the owner
        try (Gw b = new Gw(image, "gw-b", 2, GatewayAlua.Mode.EXPLICIT)) {
            a.alua.poll();
            b.alua.poll();
            assertThat(a.alua.owner()).isTrue();
            assertThat(b.h.device.alua().group(1)).isNotNull();
            a.close();
            synchronized (image) {
                assertThat(image.table).doesNotContainKeys(GatewayAlua.GATEWAY_PREFIX + "1", GatewayAlua.OWNER_KEY);
                assertThat(image.holder).as("released, not left to be broken").isNull();
            }
            b.alua.poll();
            assertThat(b.alua.owner()).as("the first survivor to poll takes the released lock").isTrue();
            assertThat(image.table).containsEntry(GatewayAlua.OWNER_KEY, "2");
            assertThat(b.state(2)).isEqualTo(AluaAccessState.ACTIVE_OPTIMIZED);
            assertThat(b.h.device.alua().group(1)).as("gw-a's group no longer reported").isNull();
            b.nexus.drainUnitAttentions();
            byte[] d = b.rtpg(); // groups 0 (no port) and 2 (A/O, one port)
            assertThat(d).hasSize(4 + 8 + 12);
            assertThat(d[12] & 0x0F).isEqualTo(AluaAccessState.ACTIVE_OPTIMIZED);
            assertThat(d[15]).isEqualTo((byte) 2);
        }
    }

    /** Issue 16: a SIGKILLed gateway is Offline once its client is gone a few polls, then pruned by the owner. */
    @Test
    void aDeadGatewayIsOfflineThenPrunedByTheOwner() {
        FakeImage image = new FakeImage();
        try (Gw a = new Gw(image, "gw-a", 1, GatewayAlua.Mode.IMPLICIT);
             Gw b = new Gw(image, "gw-b", 2, GatewayAlua.Mode.IMPLICIT)) {
            a.alua.poll();
            b.alua.poll();
            synchronized (image) {
                image.live.remove("gw-b"); // killed: its watch timed out; its entry stays
            }
            for (int i = 1; i < GatewayAlua.DEAD_POLLS; i++) {
                a.alua.poll();
                assertThat(a.state(2)).as("missing from %d poll(s): not dead yet", i)
                        .isEqualTo(AluaAccessState.ACTIVE_NON_OPTIMIZED);
            }
            a.nexus.drainUnitAttentions();
            a.alua.poll();
            assertThat(a.state(2)).isEqualTo(AluaAccessState.OFFLINE);
            assertThat(a.nexus.drainUnitAttentions()).contains(Asc.ASYMMETRIC_ACCESS_STATE_CHANGED);
            byte[] d = a.rtpg(); // groups 0, 1 (A/O), 2 (Offline, its port still listed)
            assertThat(d).hasSize(4 + 8 + 12 + 12);
            assertThat(d[24] & 0x0F).isEqualTo(AluaAccessState.OFFLINE);
            assertThat(d[27]).isEqualTo((byte) 2);
            assertThat(d[35]).isEqualTo((byte) 1);
            assertThat(image.table).containsKey(GatewayAlua.GATEWAY_PREFIX + "2");
            for (int i = GatewayAlua.DEAD_POLLS; i < GatewayAlua.PRUNE_POLLS; i++) {
                a.alua.poll();
            }
            assertThat(image.table).as("pruned by the owner").doesNotContainKey(GatewayAlua.GATEWAY_PREFIX + "2");
            a.alua.poll();
            assertThat(a.h.device.alua().group(2)).as("no longer reported").isNull();
            synchronized (image) {
                image.live.add("gw-b"); // back (a restart): it registers again and is reported again
            }
            b.alua.poll();
            a.alua.poll();
            assertThat(a.state(2)).isEqualTo(AluaAccessState.ACTIVE_NON_OPTIMIZED);
        }
    }

    /** A dead owner: the others report no Active/Optimized group, and an implicit write still takes over. */
    @Test
    void aDeadOwnerIsOfflineAndAWriteElsewhereTakesOver() throws Exception {
        FakeImage image = new FakeImage();
        try (Gw a = new Gw(image, "gw-a", 1, GatewayAlua.Mode.IMPLICIT);
             Gw b = new Gw(image, "gw-b", 2, GatewayAlua.Mode.IMPLICIT)) {
            a.alua.poll();
            b.alua.poll();
            synchronized (image) {
                image.live.remove("gw-a"); // the owner dies holding the lock
            }
            for (int i = 0; i < GatewayAlua.DEAD_POLLS; i++) {
                b.alua.poll();
            }
            assertThat(b.state(1)).isEqualTo(AluaAccessState.OFFLINE);
            assertThat(b.state(2)).isEqualTo(AluaAccessState.ACTIVE_NON_OPTIMIZED);
            b.nexus.drainUnitAttentions();
            // no store to ask the dead owner through: the parked write waits while B breaks the lock
            TestFabric.Result w = b.nexus.out(Harness.write10(0, 1), Harness.pattern(512, 1));
            assertThat(w.status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(b.alua.owner()).isTrue();
            assertThat(image.breaks).isEqualTo(1);
            assertThat(b.state(2)).isEqualTo(AluaAccessState.ACTIVE_OPTIMIZED);
            assertThat(b.state(1)).isEqualTo(AluaAccessState.OFFLINE);
        }
    }
}
