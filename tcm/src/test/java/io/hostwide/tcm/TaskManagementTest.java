package io.hostwide.tcm;

import io.hostwide.scsi.spec.Asc;
import io.hostwide.scsi.spec.LunAddress;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.scsi.spec.TaskAttribute;
import io.hostwide.tcm.core.Session;
import io.hostwide.tcm.lu.DeviceAttributes;
import io.hostwide.tcm.spi.TargetCommand;
import io.hostwide.tcm.tmf.TmfFunction;
import io.hostwide.tcm.tmf.TmfResponse;
import io.hostwide.tcm.tmf.TmfResult;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** SAM-5 §7 task management through {@code core.taskManagement().request}: responses, exactly-once, UAs. */
class TaskManagementTest {
    static final long LUN0 = LunAddress.encode(0);

    private static CompletableFuture<TmfResult> tmf(Harness h, Session s, TmfFunction f, long lun, long tag) {
        CompletableFuture<TmfResult> r = new CompletableFuture<>();
        h.core.taskManagement().request(s, f, lun, tag, r::complete);
        return r;
    }

    private static TmfResult done(CompletableFuture<TmfResult> f) {
        try {
            return f.get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static Session open(Harness h, RecordingFabric f, String name) {
        return h.core.openSession(h.port, f, name, name + ",i,0x01");
    }

    @Test
    void abortTaskOfAParkedCommand() {
        GatedBackstore g = new GatedBackstore(1 << 20, 512);
        try (Harness h = new Harness(new DeviceAttributes(), g); GatedBackstore.Unblock unblock = g::unblock) {
            RecordingFabric f = new RecordingFabric();
            Session s = open(h, f, "iqn.2026-12.io.hostwide:a");
            long a = f.read(s, 1, TaskAttribute.SIMPLE);
            g.nextArrival();
            long b = f.write(s, 2, TaskAttribute.ORDERED);
            TmfResult r = done(tmf(h, s, TmfFunction.ABORT_TASK, LUN0, b));
            assertThat(r.response()).isEqualTo(TmfResponse.FUNCTION_COMPLETE);
            assertThat(r.abortedTags()).containsExactly(b);
            RecordingFabric.Done d = f.await(b);
            assertThat(d.aborted()).isTrue();
            assertThat(d.suppressed()).as("same nexus: no response is sent").isTrue();
            assertThat(h.core.taskSet(h.device).delayed()).isZero();
            g.release(1);
            assertThat(f.await(a).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(g.pendingArrivals()).as("the aborted write never reached the backstore").isZero();
            assertThat(h.core.taskSet(h.device).nonOrdered()).isZero();
            assertThat(h.core.taskManagement().abortsComplete()).isEqualTo(1);
        }
    }

    @Test
    void abortTaskWaitsForAnExecutingCommand() {
        GatedBackstore g = new GatedBackstore(1 << 20, 512);
        try (Harness h = new Harness(new DeviceAttributes(), g); GatedBackstore.Unblock unblock = g::unblock) {
            RecordingFabric f = new RecordingFabric();
            Session s = open(h, f, "iqn.2026-12.io.hostwide:a");
            long a = f.read(s, 1, TaskAttribute.SIMPLE);
            g.nextArrival();
            CompletableFuture<TmfResult> r = tmf(h, s, TmfFunction.ABORT_TASK, LUN0, a);
            assertThat(r).as("the response waits for the task to end").isNotDone();
            assertThat(h.core.taskManagement().pending()).isEqualTo(1);
            g.release(1);
            assertThat(done(r).abortedTags()).containsExactly(a);
            RecordingFabric.Done d = f.await(a);
            assertThat(d.aborted()).isTrue();
            assertThat(f.perTag.get(a).get()).isEqualTo(1);
            assertThat(h.core.taskManagement().pending()).isZero();
        }
    }

    @Test
    void abortTaskOfNothing() {
        try (Harness h = new Harness()) {
            RecordingFabric f = new RecordingFabric();
            Session s = open(h, f, "iqn.2026-12.io.hostwide:a");
            long t = f.read(s, 1, TaskAttribute.SIMPLE); // RAM: completes inline
            assertThat(f.completed(t)).isTrue();
            assertThat(done(tmf(h, s, TmfFunction.ABORT_TASK, LUN0, t)).response()).isEqualTo(TmfResponse.TASK_DOES_NOT_EXIST);
            assertThat(done(tmf(h, s, TmfFunction.ABORT_TASK_SET, LUN0, 0)).response()).isEqualTo(TmfResponse.FUNCTION_COMPLETE);
            assertThat(done(tmf(h, s, TmfFunction.ABORT_TASK, LunAddress.encode(7), t)).response())
                    .isEqualTo(TmfResponse.INCORRECT_LOGICAL_UNIT_NUMBER);
            assertThat(done(tmf(h, s, TmfFunction.CLEAR_ACA, LUN0, 0)).response()).isEqualTo(TmfResponse.FUNCTION_REJECTED);
            assertThat(done(tmf(h, s, TmfFunction.fromIscsiFunction(8), LUN0, 0)).response())
                    .as("TASK REASSIGN / unknown codes").isEqualTo(TmfResponse.FUNCTION_REJECTED);
            assertThat(h.core.taskManagement().abortsNoTask()).isEqualTo(1);
        }
    }

    /**
     * LUN reset with commands of two nexuses in flight: the requester's are aborted silently, the other's end with
     * TASK ABORTED (TAS = 1); a command still on the I/O queue never runs; everyone gets 29h/03h afterwards.
     */
    @Test
    void logicalUnitReset() {
        GatedBackstore g = new GatedBackstore(1 << 20, 512);
        try (Harness h = new Harness(new DeviceAttributes().ioThreads(1), g); GatedBackstore.Unblock unblock = g::unblock) {
            RecordingFabric f = new RecordingFabric();
            Session s1 = open(h, f, "iqn.2026-12.io.hostwide:a");
            Session s2 = open(h, f, "iqn.2026-12.io.hostwide:b");
            long executing = f.read(s2, 1, TaskAttribute.SIMPLE);
            g.nextArrival();
            long queued = f.write(s1, 2, TaskAttribute.SIMPLE);  // waits for the single I/O thread
            CompletableFuture<TmfResult> r = tmf(h, s1, TmfFunction.LOGICAL_UNIT_RESET, LUN0, 0);
            assertThat(r).isNotDone();
            g.release(1);
            TmfResult res = done(r);
            RecordingFabric.Done q = f.await(queued); // left the I/O queue without running its handler
            assertThat(q.aborted()).isTrue();
            assertThat(q.suppressed()).isTrue();
            assertThat(res.response()).isEqualTo(TmfResponse.FUNCTION_COMPLETE);
            assertThat(res.abortedTags()).containsExactly(queued);
            RecordingFabric.Done e = f.await(executing);
            assertThat(e.aborted()).isTrue();
            assertThat(e.status()).isEqualTo(ScsiStatus.TASK_ABORTED);
            assertThat(e.suppressed()).isFalse();
            assertThat(g.pendingArrivals()).as("the queued write never ran").isZero();
            g.hold = false;
            for (Session s : new Session[] {s1, s2}) {
                long t = f.submit(s, Harness.cdb(0, 0, 0, 0, 0, 0), TaskAttribute.SIMPLE, TargetCommand.DIR_NONE, 0);
                assertThat(f.await(t).status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
            }
            assertThat(h.session.sessionLuns().get(0).unitAttentions().peek())
                    .isEqualTo(Asc.BUS_DEVICE_RESET_FUNCTION_OCCURRED);
            assertThat(h.core.taskManagement().resets()).isEqualTo(1);
        }
    }

    @Test
    void nexusResetTellsOnlyThatNexus() {
        try (Harness h = new Harness()) {
            Nexus a = Nexus.first(h);
            Nexus b = Nexus.open(h, "iqn.2026-12.io.hostwide:b");
            assertThat(done(tmf(h, a.session, TmfFunction.I_T_NEXUS_RESET, 0, 0)).response())
                    .isEqualTo(TmfResponse.FUNCTION_COMPLETE);
            assertThat(a.drainUnitAttentions()).containsExactly(Asc.I_T_NEXUS_LOSS_OCCURRED);
            assertThat(b.drainUnitAttentions()).isEmpty();
            done(tmf(h, a.session, TmfFunction.TARGET_WARM_RESET, 0, 0));
            assertThat(a.drainUnitAttentions()).containsExactly(0x2902);
            assertThat(b.drainUnitAttentions()).containsExactly(0x2902);
            done(tmf(h, a.session, TmfFunction.TARGET_COLD_RESET, 0, 0));
            assertThat(b.drainUnitAttentions()).containsExactly(Asc.POWER_ON_OCCURRED);
        }
    }

    @Test
    void queries() {
        GatedBackstore g = new GatedBackstore(1 << 20, 512);
        try (Harness h = new Harness(new DeviceAttributes(), g); GatedBackstore.Unblock unblock = g::unblock) {
            RecordingFabric f = new RecordingFabric();
            Session s = open(h, f, "iqn.2026-12.io.hostwide:a");
            assertThat(done(tmf(h, s, TmfFunction.QUERY_TASK_SET, LUN0, 0)).response()).isEqualTo(TmfResponse.FUNCTION_COMPLETE);
            long a = f.read(s, 1, TaskAttribute.SIMPLE);
            g.nextArrival();
            assertThat(done(tmf(h, s, TmfFunction.QUERY_TASK, LUN0, a)).response()).isEqualTo(TmfResponse.FUNCTION_SUCCEEDED);
            assertThat(done(tmf(h, s, TmfFunction.QUERY_TASK, LUN0, a + 100)).response()).isEqualTo(TmfResponse.FUNCTION_COMPLETE);
            assertThat(done(tmf(h, s, TmfFunction.QUERY_TASK_SET, LUN0, 0)).response()).isEqualTo(TmfResponse.FUNCTION_SUCCEEDED);
            g.release(1);
            f.await(a);
            assertThat(done(tmf(h, s, TmfFunction.QUERY_ASYNCHRONOUS_EVENT, LUN0, 0)).response())
                    .isEqualTo(TmfResponse.FUNCTION_COMPLETE);
            h.device.broadcastUnitAttention(Asc.MODE_PARAMETERS_CHANGED, null);
            TmfResult q = done(tmf(h, s, TmfFunction.QUERY_ASYNCHRONOUS_EVENT, LUN0, 0));
            assertThat(q.response()).isEqualTo(TmfResponse.FUNCTION_SUCCEEDED);
            assertThat(q.additionalResponseInformation()).isEqualTo(0x16_2A01); // depth 1, UNIT ATTENTION, 2Ah/01h
            assertThat(s.lookup(0).unitAttentions().size()).as("QUERY does not clear it").isEqualTo(1);
        }
    }

    /** SPC-4 §5.13.11.4.5: PREEMPT AND ABORT ends the preempted nexus's tasks (TASK ABORTED: TAS) before GOOD. */
    @Test
    void preemptAndAbort() {
        GatedBackstore g = new GatedBackstore(1 << 20, 512);
        g.hold = false;
        try (Harness h = new Harness(new DeviceAttributes(), g); GatedBackstore.Unblock unblock = g::unblock) {
            RecordingFabric f = new RecordingFabric();
            Session a = open(h, f, "iqn.2026-12.io.hostwide:a");
            Session b = open(h, f, "iqn.2026-12.io.hostwide:b");
            assertThat(f.await(prout(f, a, 6, 0, 0, 0xA)).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(f.await(prout(f, b, 6, 0, 0, 0xB)).status()).isEqualTo(ScsiStatus.GOOD);
            g.hold = true;
            long victim = f.read(b, 3, TaskAttribute.SIMPLE);
            g.nextArrival();
            g.hold = false;
            long pa = prout(f, a, 5, 3, 0xA, 0xB);
            assertThat(f.completed(pa)).as("waits for the preempted nexus task: " + f.completions).isFalse();
            g.release(1);
            RecordingFabric.Done v = f.await(victim);
            assertThat(v.aborted()).isTrue();
            assertThat(v.status()).isEqualTo(ScsiStatus.TASK_ABORTED);
            assertThat(f.await(pa).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.device.reservations().state().registrations()).hasSize(1);
            assertThat(h.device.reservations().state().registrationOf(a).key()).isEqualTo(0xA);
            assertThat(b.lookup(0).unitAttentions().peek()).isEqualTo(Asc.REGISTRATIONS_PREEMPTED);
        }
    }

    private static long prout(RecordingFabric f, Session s, int sa, int type, long key, long saKey) {
        return f.submit(s, Nexus.proutCdb(sa, type, 24), TaskAttribute.SIMPLE, Nexus.basic(key, saKey, 0));
    }

    /** SAM-5 §6.3.4: nexus loss aborts the nexus's tasks (no responses) and its SPC-2 reservation goes. */
    @Test
    void nexusLoss() throws Exception {
        GatedBackstore g = new GatedBackstore(1 << 20, 512);
        try (Harness h = new Harness(new DeviceAttributes(), g); GatedBackstore.Unblock unblock = g::unblock) {
            RecordingFabric f = new RecordingFabric();
            Session a = open(h, f, "iqn.2026-12.io.hostwide:a");
            g.hold = false;
            assertThat(f.await(f.submit(a, Harness.cdb(0x16, 0, 0, 0, 0, 0), TaskAttribute.SIMPLE, TargetCommand.DIR_NONE, 0))
                    .status()).isEqualTo(ScsiStatus.GOOD);
            g.hold = true;
            long t = f.read(a, 1, TaskAttribute.SIMPLE);
            g.nextArrival();
            CompletableFuture<Void> lost = new CompletableFuture<>();
            h.core.taskManagement().nexusLoss(a, () -> lost.complete(null));
            assertThat(h.device.reservations().state().spc2Holder()).isNull();
            assertThat(lost).isNotDone();
            g.releaseLba(1);
            lost.get(10, TimeUnit.SECONDS);
            RecordingFabric.Done d = f.await(t);
            assertThat(d.aborted()).isTrue();
            assertThat(d.suppressed()).isTrue();
        }
    }
}
