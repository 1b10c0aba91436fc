package io.hostwide.tcm.alua;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link GatewayTable}: the gateways' entries and who is dead (issue 16, gateway lifecycle). */
class GatewayTableTest {

    /** A store that cannot name its clients (or an entry of an older version): everybody counts as alive. */
    @Test
    void entriesParseAndAClientMissingLongEnoughIsDead() {
        GatewayTable t = new GatewayTable(2, 3);
        Map<Integer, GatewayTable.Entry> gws = GatewayTable.gateways(Map.of(
                "hostwide.gw.1", "name=a;rtpi=1", "hostwide.gw.2", "name=b;rtpi=2,3;client=42",
                "hostwide.gw.x", "junk", "hostwide.alua.owner", "1"));
        assertThat(gws).containsOnlyKeys(1, 2);
        assertThat(gws.get(2)).isEqualTo(new GatewayTable.Entry(2, "b", List.of(2, 3), "42"));
        assertThat(GatewayTable.format("b", List.of(2, 3), "42")).isEqualTo("name=b;rtpi=2,3;client=42");
        assertThat(t.update(gws, null, 9)).as("live clients unknown").isEmpty();
        assertThat(t.update(gws, Set.of(), 9)).isEmpty();
        assertThat(t.update(gws, Set.of(), 9)).containsExactly(2);
        assertThat(t.prunable(2)).isFalse();
        assertThat(t.update(gws, Set.of(), 9)).containsExactly(2);
        assertThat(t.prunable(2)).isTrue();
        assertThat(t.update(gws, Set.of("42"), 9)).as("back: the count starts again").isEmpty();
        assertThat(t.prunable(2)).isFalse();
        assertThat(t.update(gws, Set.of(), 2)).as("never itself").isEmpty();
    }

    @Test
    void anEntryWithoutClientOrPortsParses() {
        assertThat(GatewayTable.parse(7, "name=x;rtpi=;client=")).isEqualTo(new GatewayTable.Entry(7, "x", List.of(), null));
        assertThat(GatewayTable.parse(7, "rtpi=0,70000,5,5")).isEqualTo(new GatewayTable.Entry(7, "gateway", List.of(5), null));
    }
}
