package io.hostwide.iscsi.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hostwide.iscsi.login.KeyValue;
import java.util.List;
import org.junit.jupiter.api.Test;

class SendTargetsTest {
    static final DiscoveryTarget T0 = new DiscoveryTarget("iqn.t0",
            List.of(new Portal("127.0.0.1", 3260, 1), new Portal("::1", 3261, 1)), null);
    static final DiscoveryTarget T1 = new DiscoveryTarget("iqn.t1", List.of(new Portal("10.0.0.1", 3260, 2)),
            name -> name.equals("iqn.friend"));

    @Test
    void allInDiscoveryReportsEveryVisibleTargetWithEveryPortal() {
        assertThat(SendTargets.answer("All", null, "iqn.friend", List.of(T0, T1))).containsExactly(
                new KeyValue("TargetName", "iqn.t0"), new KeyValue("TargetAddress", "127.0.0.1:3260,1"),
                new KeyValue("TargetAddress", "[::1]:3261,1"), new KeyValue("TargetName", "iqn.t1"),
                new KeyValue("TargetAddress", "10.0.0.1:3260,2"));
        assertThat(SendTargets.answer("All", null, "iqn.stranger", List.of(T0, T1)))
                .extracting(KeyValue::value).doesNotContain("iqn.t1");
    }

    @Test
    void namedAndEmptyForms() {
        assertThat(SendTargets.answer("iqn.t1", null, "iqn.friend", List.of(T0, T1))).hasSize(2);
        assertThat(SendTargets.answer("iqn.t1", null, "iqn.stranger", List.of(T0, T1))).isEmpty();
        assertThat(SendTargets.answer("iqn.none", null, "iqn.friend", List.of(T0, T1))).isEmpty();
        assertThat(SendTargets.answer("", "iqn.t0", "iqn.x", List.of(T0, T1))).hasSize(3);
        assertThat(SendTargets.answer("", null, "iqn.x", List.of(T0, T1)))
                .containsExactly(new KeyValue("SendTargets", "Reject"));
        assertThat(SendTargets.answer("All", "iqn.t0", "iqn.x", List.of(T0, T1)))
                .containsExactly(new KeyValue("SendTargets", "Reject"));
    }

    @Test
    void portalValidation() {
        assertThatThrownBy(() -> new Portal("h", 0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Portal("h", 1, 70000)).isInstanceOf(IllegalArgumentException.class);
    }
}
