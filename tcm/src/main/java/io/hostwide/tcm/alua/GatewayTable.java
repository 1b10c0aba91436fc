package io.hostwide.tcm.alua;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The gateways' entries in the shared table of one LU ({@link GatewayAlua}), and which of them are alive.
 *
 * <p>An entry is {@code hostwide.gw.<port group>} = {@code name=<gateway>;rtpi=<relative port ids>;client=<id>},
 * where {@code client} is the gateway's client of the shared storage as {@code SharedOwnership.clientId()} names
 * it (RBD: the RADOS instance id of its image client). Entries written before {@code client} existed, or by a store
 * that cannot name its clients, count as alive.
 *
 * <p><b>Dead or alive</b>: a gateway is alive while its client is among the store's live clients (RBD: the image
 * header's watchers, {@code rbd_watchers_list}). This needs no clock and no writes by the gateways that are not the
 * owner (a heartbeat in the table would need both: every non-owner's {@code rbd_metadata_set} is forwarded to the
 * owner, and hangs with it when the owner is the one that died). A SIGKILLed gateway's watch ends when the OSD's
 * watch timeout expires (30 s by default), or at once when it is blocklisted (a takeover breaking its lock). A client
 * missing from one poll is not dead yet: a gateway that reopens after a fence has a new client id until its next
 * poll rewrites its entry. Only one missing for {@link #deadPolls} polls in a row is.
 *
 * <p><b>What REPORT TARGET PORT GROUPS says of a dead gateway</b>: its group, with its ports, in the Offline state
 * (SPC-4 §5.15.2.4.7), until the owner prunes its entry {@link #prunePolls} polls after it died; then nothing.
 * Listing it Offline rather than dropping it at once is for Linux's scsi_dh_alua: an RTPG answer updates the state
 * of every port group it lists, and leaves a group it does not list in the state last seen — Active/Optimized when
 * the dead gateway was the owner — so the dead paths would keep a high priority in multipath until they are probed
 * themselves. Offline gives them priority 0 at once. A gateway that stops cleanly removes its own entry, having asked
 * its initiators to log out: nothing is left to report.
 *
 * <p>Not thread-safe: used by the policy's thread (under {@link GatewayAlua}'s monitor).
 */
final class GatewayTable {
    /** The shared table's keys (kept in {@link GatewayAlua} as public constants). */
    static final String GATEWAY_PREFIX = "hostwide.gw.";

    /** One gateway's entry. {@code client} is null when the entry names none. */
    record Entry(int group, String name, List<Integer> ports, String client) {}

    private final int deadPolls;
    private final int prunePolls;
    /** Consecutive polls each group's client was missing from the live clients, by group id. */
    private final Map<Integer, Integer> missing = new HashMap<>();

    GatewayTable(int deadPolls, int prunePolls) {
        if (deadPolls < 1 || prunePolls < deadPolls) {
            throw new IllegalArgumentException("deadPolls >= 1 and prunePolls >= deadPolls");
        }
        this.deadPolls = deadPolls;
        this.prunePolls = prunePolls;
    }

    /** An entry's value. */
    static String format(String name, List<Integer> ports, String client) {
        StringBuilder sb = new StringBuilder("name=").append(name).append(";rtpi=");
        for (int i = 0; i < ports.size(); i++) {
            sb.append(i == 0 ? "" : ",").append(ports.get(i));
        }
        if (client != null) {
            sb.append(";client=").append(client);
        }
        return sb.toString();
    }

    /** The gateways' entries of {@code table} with a valid group id (1..65535), by group id. */
    static Map<Integer, Entry> gateways(Map<String, String> table) {
        Map<Integer, Entry> out = new TreeMap<>();
        for (Map.Entry<String, String> e : table.entrySet()) {
            if (!e.getKey().startsWith(GATEWAY_PREFIX)) {
                continue;
            }
            int id = parseInt(e.getKey().substring(GATEWAY_PREFIX.length()));
            if (id >= 1 && id <= 0xFFFF) {
                out.put(id, parse(id, e.getValue()));
            }
        }
        return out;
    }

    static Entry parse(int group, String value) {
        String name = "gateway";
        String client = null;
        List<Integer> ports = new ArrayList<>();
        for (String field : value.split(";")) {
            if (field.startsWith("name=")) {
                name = field.substring(5);
            } else if (field.startsWith("client=")) {
                client = field.substring(7).isEmpty() ? null : field.substring(7);
            } else if (field.startsWith("rtpi=")) {
                for (String p : field.substring(5).split(",")) {
                    int rtpi = parseInt(p);
                    if (rtpi >= 1 && rtpi <= 0xFFFF && !ports.contains(rtpi)) {
                        ports.add(rtpi);
                    }
                }
            }
        }
        return new Entry(group, name, List.copyOf(ports), client);
    }

    /**
     * Takes one poll's view: {@code live} the store's live clients (null: unknown, nobody is counted missing).
     * {@code self} is this gateway's group, never counted.
     *
     * @return the groups whose gateway is dead (missing for {@link #deadPolls} polls or more)
     */
    Set<Integer> update(Map<Integer, Entry> gateways, Set<String> live, int self) {
        missing.keySet().retainAll(gateways.keySet());
        Set<Integer> dead = new HashSet<>();
        if (live == null) {
            return dead; // unknown this time: nobody's count moves
        }
        for (Entry e : gateways.values()) {
            if (e.group() == self || e.client() == null || live.contains(e.client())) {
                missing.remove(e.group());
                continue;
            }
            int n = missing.merge(e.group(), 1, Integer::sum);
            if (n >= deadPolls) {
                dead.add(e.group());
            }
        }
        return dead;
    }

    /** Whether {@code group}'s entry has been dead long enough for the owner to remove it. */
    boolean prunable(int group) {
        Integer n = missing.get(group);
        return n != null && n >= prunePolls;
    }

    static int parseInt(String s) {
        if (s == null) {
            return -1;
        }
        try {
            return Integer.parseInt(s.trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
