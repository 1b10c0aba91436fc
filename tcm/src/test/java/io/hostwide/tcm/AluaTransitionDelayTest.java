package io.hostwide.tcm;

import io.hostwide.scsi.spec.Asc;
import io.hostwide.scsi.spec.BigEndian;
import io.hostwide.scsi.spec.LunAddress;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.scsi.spec.SenseKey;
import io.hostwide.scsi.spec.TaskAttribute;
import io.hostwide.tcm.lu.AluaAccessState;
import io.hostwide.tcm.spi.TargetCommand;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.hostwide.tcm.AluaTest.rtpg;
import static io.hostwide.tcm.AluaTest.stpg;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * ALUA transition delay and implicit transition time per target port group (SPC-4 §5.15.2.5, §6.27; LIO
 * trans_delay_msecs, implicit_trans_secs), stepped on a manual executor and clock.
 */
class AluaTransitionDelayTest {
    static final long MS = 1_000_000L;

    final ManualBackground bg = new ManualBackground();

    AluaTest.Two two() {
        AluaTest.Two t = new AluaTest.Two();
        t.h.core.background(bg);
        t.a.drainUnitAttentions();
        t.b.drainUnitAttentions();
        return t;
    }

    static void assertSense(TestFabric.Result r, int ascAscq) {
        assertThat(r.status()).as("%s", r).isEqualTo(ScsiStatus.CHECK_CONDITION);
        assertThat(r.senseKey()).isEqualTo(SenseKey.NOT_READY);
        assertThat(r.ascAscq()).isEqualTo(ascAscq);
    }

    /** Group 1's descriptor in a length-only RTPG response: byte 0 PREF|STATE, byte 5 STATUS CODE. */
    static byte[] group1(Nexus n) {
        byte[] d = Nexus.ok(n.in(rtpg(0, 1024), 1024)).data();
        return java.util.Arrays.copyOfRange(d, 16, 24);
    }

    @Test
    void implicitTransitionIsTransitioningForTheDelayThenPublishedWithTheUnitAttention() {
        try (AluaTest.Two t = two()) {
            t.g1.transitionDelayMillis(500);
            assertThat(t.alua.transition(t.g1, AluaAccessState.STANDBY)).isTrue();
            assertSense(t.b.in(Harness.read10(0, 1), 512), Asc.LOGICAL_UNIT_NOT_READY_ASYMMETRIC_ACCESS_STATE_TRANSITION);
            assertThat(group1(t.b)).startsWith(0x0F, 0xCF, 0, 1, 0, AluaAccessState.STATUS_IMPLICIT);
            assertThat(t.a.drainUnitAttentions()).isEmpty(); // told when the transition completes
            assertThat(Nexus.ok(t.a.in(Harness.read10(0, 1), 512)).status()).isEqualTo(ScsiStatus.GOOD);

            bg.advance(499 * MS);
            assertSense(t.b.in(Harness.read10(0, 1), 512), Asc.LOGICAL_UNIT_NOT_READY_ASYMMETRIC_ACCESS_STATE_TRANSITION);
            bg.advance(MS);
            assertThat(t.b.drainUnitAttentions()).containsExactly(Asc.ASYMMETRIC_ACCESS_STATE_CHANGED);
            assertThat(t.a.drainUnitAttentions()).containsExactly(Asc.ASYMMETRIC_ACCESS_STATE_CHANGED);
            assertSense(t.b.in(Harness.read10(0, 1), 512), Asc.LOGICAL_UNIT_NOT_READY_TARGET_PORT_IN_STANDBY_STATE);
            assertThat(group1(t.b)[0]).isEqualTo((byte) AluaAccessState.STANDBY);
            assertThat(t.alua.transition(t.g1, AluaAccessState.STANDBY)).isFalse();
            assertThat(bg.pending()).isZero();
        }
    }

    @Test
    void setTargetPortGroupsCompletesWhenTheTransitionHas() throws Exception {
        try (AluaTest.Two t = two()) {
            t.g1.transitionDelayMillis(200);
            byte[] list = {0, 0, 0, 0, AluaAccessState.UNAVAILABLE, 0, 0, 1};
            CompletableFuture<TestFabric.Result> f = t.h.fabric.start(t.a.session, LunAddress.encode(0), stpg(8),
                    TaskAttribute.SIMPLE, 8, TargetCommand.DIR_WRITE, list);
            assertThat(f).isNotDone();
            assertSense(t.b.in(Harness.read10(0, 1), 512), Asc.LOGICAL_UNIT_NOT_READY_ASYMMETRIC_ACCESS_STATE_TRANSITION);
            assertThat(group1(t.a)[5]).isEqualTo((byte) AluaAccessState.STATUS_EXPLICIT);
            assertThat(bg.runAll()).isEqualTo(1);
            assertThat(f.get(5, TimeUnit.SECONDS).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(t.a.drainUnitAttentions()).isEmpty(); // the nexus that asked is not told
            assertThat(t.b.drainUnitAttentions()).containsExactly(Asc.ASYMMETRIC_ACCESS_STATE_CHANGED);
            assertSense(t.b.in(Harness.read10(0, 1), 512), Asc.LOGICAL_UNIT_NOT_READY_TARGET_PORT_IN_UNAVAILABLE_STATE);

            byte[] again = {0, 0, 0, 0, AluaAccessState.UNAVAILABLE, 0, 0, 1}; // already there: GOOD at once
            assertThat(Nexus.ok(t.a.out(stpg(8), again)).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(bg.pending()).isZero();
        }
    }

    @Test
    void aLaterTransitionSupersedesAPendingOne() {
        try (AluaTest.Two t = two()) {
            t.g1.transitionDelayMillis(100);
            t.alua.transition(t.g1, AluaAccessState.STANDBY);
            bg.advance(50 * MS);
            assertThat(t.alua.transition(t.g1, AluaAccessState.ACTIVE_NON_OPTIMIZED)).isTrue();
            bg.advance(60 * MS); // the first transition's time: superseded, nothing published
            assertSense(t.b.in(Harness.read10(0, 1), 512), Asc.LOGICAL_UNIT_NOT_READY_ASYMMETRIC_ACCESS_STATE_TRANSITION);
            bg.advance(40 * MS);
            assertThat(t.b.drainUnitAttentions()).containsExactly(Asc.ASYMMETRIC_ACCESS_STATE_CHANGED);
            assertThat(Nexus.ok(t.b.in(Harness.read10(0, 1), 512)).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(group1(t.b)[0]).isEqualTo((byte) AluaAccessState.ACTIVE_NON_OPTIMIZED);
        }
    }

    @Test
    void reportTargetPortGroupsShowsTheReceivingGroupsImplicitTransitionTime() {
        try (AluaTest.Two t = two()) {
            t.g1.implicitTransitionSeconds(45);
            assertThat(Nexus.ok(t.b.in(rtpg(1, 1024), 1024)).data()[5]).isEqualTo((byte) 45);
            assertThat(Nexus.ok(t.a.in(rtpg(1, 1024), 1024)).data()[5]).isZero();
            assertThat(BigEndian.u32(Nexus.ok(t.b.in(rtpg(1, 1024), 1024)).data(), 0)).isEqualTo(28);
            assertThatThrownBy(() -> t.g1.implicitTransitionSeconds(256)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> t.g1.transitionDelayMillis(-1)).isInstanceOf(IllegalArgumentException.class);
        }
    }
}
