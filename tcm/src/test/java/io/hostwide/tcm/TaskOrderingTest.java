package io.hostwide.tcm;

import io.hostwide.scsi.spec.Asc;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.scsi.spec.TaskAttribute;
import io.hostwide.tcm.core.Session;
import io.hostwide.tcm.core.TaskSet;
import io.hostwide.tcm.lu.DeviceAttributes;
import io.hostwide.tcm.spi.TargetCommand;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * SAM-5 §8.6 ordering with LIO's 2021 rules (digest §6.3), stepped by hand through a {@link GatedBackstore}: an
 * ORDERED command waits for every older command, newer SIMPLE ones wait behind it, HEAD OF QUEUE jumps ahead.
 */
class TaskOrderingTest {

    private static Harness harness(GatedBackstore g) {
        return new Harness(new DeviceAttributes().ioThreads(8), g);
    }

    @Test
    void orderedWaitsForOlderAndHoldsBackNewer() {
        GatedBackstore g = new GatedBackstore(1 << 20, 512);
        try (Harness h = harness(g); GatedBackstore.Unblock unblock = g::unblock) {
            RecordingFabric f = new RecordingFabric();
            Session s = h.core.openSession(h.port, f, "iqn.2026-12.io.hostwide:o", "iqn.2026-12.io.hostwide:o,i,0x01");
            TaskSet o = h.core.taskSet(h.device);

            long a = f.read(s, 1, TaskAttribute.SIMPLE);
            assertThat(g.nextArrival()).isEqualTo(1);
            long b = f.write(s, 2, TaskAttribute.ORDERED);
            long c = f.read(s, 3, TaskAttribute.SIMPLE);
            long d = f.read(s, 4, TaskAttribute.HEAD_OF_QUEUE);
            assertThat(g.nextArrival()).as("HEAD OF QUEUE jumps the parked ORDERED").isEqualTo(4);
            assertThat(o.delayed()).as("B and C parked").isEqualTo(2);
            assertThat(o.nonOrdered()).isEqualTo(2);

            g.releaseLba(1);                    // A completes; D (HEAD) still runs: B keeps waiting
            f.await(a);
            assertThat(g.pendingArrivals()).isZero();
            assertThat(o.delayed()).isEqualTo(2);
            g.releaseLba(4);                    // D completes: B runs alone
            f.await(d);
            assertThat(g.nextArrival()).isEqualTo(2);
            assertThat(o.orderedInProgress()).isTrue();
            assertThat(o.delayed()).as("C waits behind the running ORDERED, which stays counted").isEqualTo(2);
            g.release(1);
            f.await(b);
            assertThat(g.nextArrival()).isEqualTo(3);
            g.release(1);
            f.await(c);
            assertThat(f.completionOrder()).containsExactly(a, d, b, c);
            assertThat(o.nonOrdered()).isZero();
            assertThat(o.delayed()).isZero();
        }
    }

    @Test
    void consecutiveOrderedCommandsRunOneAtATime() {
        GatedBackstore g = new GatedBackstore(1 << 20, 512);
        try (Harness h = harness(g); GatedBackstore.Unblock unblock = g::unblock) {
            RecordingFabric f = new RecordingFabric();
            Session s = h.core.openSession(h.port, f, "iqn.2026-12.io.hostwide:o", "iqn.2026-12.io.hostwide:o,i,0x01");
            long o1 = f.write(s, 10, TaskAttribute.ORDERED);
            assertThat(g.nextArrival()).as("nothing older: the ORDERED runs at once").isEqualTo(10);
            long s1 = f.read(s, 11, TaskAttribute.SIMPLE);
            long o2 = f.write(s, 12, TaskAttribute.ORDERED);
            long s2 = f.read(s, 13, TaskAttribute.SIMPLE);
            for (long expected : new long[] {11, 12, 13}) {
                assertThat(g.pendingArrivals()).isZero();
                g.release(1);
                assertThat(g.nextArrival()).isEqualTo(expected);
            }
            g.release(1);
            for (long t : new long[] {o1, s1, o2, s2}) {
                f.await(t);   // each: responses come from different I/O threads, so s2's may arrive first
            }
            // Execution order is what the arrivals above checked; responses of commands whose execution
            // ended one after the other may reach the fabric from different I/O threads in either order.
            assertThat(f.completionOrder()).containsExactlyInAnyOrder(o1, s1, o2, s2);
        }
    }

    @Test
    void simpleCommandsRunConcurrently() {
        GatedBackstore g = new GatedBackstore(1 << 20, 512);
        try (Harness h = harness(g); GatedBackstore.Unblock unblock = g::unblock) {
            RecordingFabric f = new RecordingFabric();
            Session s = h.core.openSession(h.port, f, "iqn.2026-12.io.hostwide:o", "iqn.2026-12.io.hostwide:o,i,0x01");
            for (int i = 0; i < 4; i++) {
                f.read(s, 20 + i, TaskAttribute.SIMPLE);
            }
            for (int i = 0; i < 4; i++) {
                g.nextArrival(); // all four reach the backstore while none completed
            }
            assertThat(h.core.taskSet(h.device).nonOrdered()).isEqualTo(4);
            g.release(4);
            for (long t = 1; t <= 4; t++) {
                f.await(t);
            }
            assertThat(h.core.taskSet(h.device).nonOrdered()).isZero();
        }
    }

    /** INQUIRY runs as HEAD OF QUEUE whatever the transport says (it never waits behind an ORDERED command). */
    @Test
    void inquiryIsHeadOfQueue() {
        GatedBackstore g = new GatedBackstore(1 << 20, 512);
        try (Harness h = harness(g); GatedBackstore.Unblock unblock = g::unblock) {
            RecordingFabric f = new RecordingFabric();
            Session s = h.core.openSession(h.port, f, "iqn.2026-12.io.hostwide:o", "iqn.2026-12.io.hostwide:o,i,0x01");
            f.read(s, 1, TaskAttribute.SIMPLE);
            g.nextArrival();
            f.write(s, 2, TaskAttribute.ORDERED);
            long inq = f.submit(s, Harness.cdb(0x12, 0, 0, 0, 36, 0), TaskAttribute.SIMPLE, TargetCommand.DIR_READ, 36);
            assertThat(f.await(inq).status()).isEqualTo(ScsiStatus.GOOD);
            g.hold = false;
            g.release(10);
        }
    }

    @Test
    void acaIsRejected() {
        try (Harness h = new Harness()) {
            TestFabric.Result r = h.fabric.run(h.session, 0, Harness.read10(0, 1), TaskAttribute.ACA, 512,
                    TargetCommand.DIR_READ, null);
            assertThat(r.status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
            assertThat(r.ascAscq()).isEqualTo(Asc.INVALID_FIELD_IN_CDB);
            assertThat(h.core.taskSet(h.device).nonOrdered()).isZero();
        }
    }
}
