package io.hostwide.management.metrics;

import io.hostwide.iscsi.server.IscsiTargetServer;
import io.hostwide.iscsi.server.LoginCounters;
import io.hostwide.management.metrics.Exposition.Family;
import io.hostwide.management.metrics.Exposition.Type;
import io.hostwide.tcm.TargetCore;
import io.hostwide.tcm.core.IoQueue;
import io.hostwide.tcm.core.Session;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.lu.DeviceStats;
import io.hostwide.tcm.lu.LatencyHistogram;
import io.hostwide.tcm.lu.Lun;
import io.hostwide.tcm.lu.SessionLun;
import io.hostwide.tcm.port.ScsiTarget;
import io.hostwide.tcm.port.TargetPort;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code GET /metrics} answers: the counters the core and the iSCSI server already keep (no per-command cost
 * is added for metrics; a scrape reads striped counters), named {@code hostwide_*} with Prometheus' conventions
 * ({@code _total} counters, {@code _seconds} histograms, {@code _bytes}), labelled {@code target_iqn}, {@code tpgt},
 * {@code lun} and, per I_T_L nexus, {@code initiator_iqn} and {@code initiator_port} (the SCSI initiator port name,
 * which tells two sessions of one initiator apart). Optionally Ceph iSCSI gateway names too
 * ({@code ceph_iscsi_lun_iops} etc.), so existing Ceph dashboards work. Read live at each scrape: a LUN added by a
 * reload appears, a removed one disappears.
 */
public final class ServeMetrics {
    /** Histogram bounds in seconds: 50 µs (RAM) to 10 s (a stalled device). */
    static final double[] BOUNDS = {0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
        0.25, 0.5, 1, 2.5, 5, 10};

    /** Which dashboards' names to add to hostwide's own. */
    public enum Compat { NONE, CEPH_ISCSI;

        /** {@code ceph-iscsi} or {@code none}; anything else is a usage error naming {@code what}. */
        public static Compat parse(String what, String text) {
            return switch (text) {
                case "none" -> NONE;
                case "ceph-iscsi" -> CEPH_ISCSI;
                default -> throw new IllegalArgumentException(what + ": '" + text + "' is unknown (ceph-iscsi or none)");
            };
        }
    }

    private final TargetCore core;
    private final IscsiTargetServer server;
    private final Compat compat;
    private final String gatewayName;

    /** @param gatewayName Ceph's {@code gw_name} label (this host's name) */
    public ServeMetrics(TargetCore core, IscsiTargetServer server, Compat compat, String gatewayName) {
        this.core = core;
        this.server = server;
        this.compat = compat;
        this.gatewayName = gatewayName;
    }

    /** One scrape, in the text exposition format 0.0.4. */
    public String scrape() {
        Exposition e = new Exposition();
        Map<String, Device> devices = new LinkedHashMap<>();
        for (ScsiTarget t : core.targets()) {
            for (TargetPort p : t.ports()) {
                for (Lun l : p.luns()) {
                    devices.putIfAbsent(l.device().name(), l.device());
                    lun(e, t, p, l);
                }
            }
        }
        devices.values().forEach(d -> queue(e, d));
        List<Session> sessions = core.sessions();
        sessions(e, sessions);
        for (Session s : sessions) {
            for (SessionLun sl : s.sessionLuns()) {
                nexus(e, s, sl);
            }
        }
        server(e);
        if (compat == Compat.CEPH_ISCSI) {
            ceph(e, devices, sessions);
        }
        return e.render();
    }

    private static void lun(Exposition e, ScsiTarget t, TargetPort p, Lun l) {
        String[] labels = {"target_iqn", t.name(), "tpgt", Integer.toString(p.tag()),
            "lun", Integer.toString(l.lunNumber()), "backstore", l.device().name()};
        Device d = l.device();
        e.family("hostwide_lun_size_bytes", Type.GAUGE, "Capacity of the logical unit in bytes")
                .sample((double) d.blockCount() * d.blockSize(), labels);
        commandFamilies(e, "hostwide_lun", "LUN", l.stats().snapshot(), labels);
    }

    private static void nexus(Exposition e, Session s, SessionLun sl) {
        TargetPort p = s.port();
        String[] labels = {"target_iqn", p.target().name(), "tpgt", Integer.toString(p.tag()),
            "lun", Integer.toString(sl.mappedLun()), "initiator_iqn", s.initiatorName(),
            "initiator_port", s.initiatorPortName()};
        commandFamilies(e, "hostwide_session", "session (I_T_L nexus)", sl.stats().snapshot(), labels);
    }

    /** Commands, bytes, errors, aborts, TASK SET FULL and latency of one scope (LUN or nexus). */
    private static void commandFamilies(Exposition e, String prefix, String scope, DeviceStats.Snapshot s,
                                        String[] labels) {
        Family commands = e.family(prefix + "_commands_total", Type.COUNTER,
                "SCSI commands completed per " + scope + ", by op (read, write, other)");
        Family latency = e.family(prefix + "_command_latency_seconds", Type.HISTOGRAM,
                "Core time per command (submission to final status, transport excluded) per " + scope + ", by op");
        String[][] ops = {{"read"}, {"write"}, {"other"}};
        DeviceStats.Side[] sides = {s.reads(), s.writes(), s.other()};
        for (int i = 0; i < 3; i++) {
            String[] withOp = with(labels, "op", ops[i][0]);
            commands.sample(sides[i].ops(), withOp);
            histogram(latency, sides[i].latency(), withOp);
        }
        e.family(prefix + "_read_bytes_total", Type.COUNTER, "Bytes read (Data-In of medium reads) per " + scope)
                .sample(s.reads().bytes(), labels);
        e.family(prefix + "_written_bytes_total", Type.COUNTER, "Bytes written per " + scope)
                .sample(s.writes().bytes(), labels);
        e.family(prefix + "_errors_total", Type.COUNTER,
                "Commands completed with a status other than GOOD (CHECK CONDITION, BUSY, ...) per " + scope)
                .sample(s.errors(), labels);
        e.family(prefix + "_aborts_total", Type.COUNTER, "Commands aborted by task management per " + scope)
                .sample(s.aborted(), labels);
        e.family(prefix + "_task_set_full_total", Type.COUNTER,
                "Commands answered TASK SET FULL (the LUN's queue was full) per " + scope)
                .sample(s.taskSetFull(), labels);
    }

    private static void histogram(Family f, LatencyHistogram.Snapshot h, String[] labels) {
        long[] cumulative = new long[BOUNDS.length];
        for (int i = 0; i < BOUNDS.length; i++) {
            cumulative[i] = h.countAtOrBelow(Math.round(BOUNDS[i] * 1e9));
        }
        f.histogram(BOUNDS, cumulative, h.count(), h.sumNanos() / 1e9, labels);
    }

    private void queue(Exposition e, Device d) {
        IoQueue q;
        try {
            q = core.ioQueue(d);
        } catch (IllegalArgumentException removed) { // removed by a reload since the LUN walk: not exported anymore
            return;
        }
        if (q == null) { // a non-blocking backstore (RAM, null) runs on the submitting thread: no queue
            return;
        }
        String[] labels = {"backstore", d.name()};
        e.family("hostwide_backstore_queue_depth", Type.GAUGE,
                "Commands the backstore's I/O queue holds at most (queue_depth); one more is TASK SET FULL")
                .sample(q.depth(), labels);
        e.family("hostwide_backstore_queue_in_use", Type.GAUGE, "Commands queued or running on the backstore now")
                .sample(q.inFlight(), labels);
    }

    private void sessions(Exposition e, List<Session> sessions) {
        Family f = e.family("hostwide_sessions", Type.GAUGE, "Logged-in SCSI sessions (I_T nexuses) per target portal group");
        Map<TargetPort, Integer> perPort = new LinkedHashMap<>();
        for (ScsiTarget t : core.targets()) {
            for (TargetPort p : t.ports()) {
                perPort.put(p, 0);
            }
        }
        for (Session s : sessions) {
            perPort.merge(s.port(), 1, Integer::sum);
        }
        perPort.forEach((p, n) -> f.sample(n, "target_iqn", p.target().name(), "tpgt", Integer.toString(p.tag())));
    }

    private void server(Exposition e) {
        IscsiTargetServer.ConnectionCounts c = server.connectionCounts();
        e.family("hostwide_connections", Type.GAUGE, "Open iSCSI connections (logged in or logging in)")
                .sample(c.open());
        e.family("hostwide_logins_pending", Type.GAUGE, "Connections that have not finished logging in")
                .sample(c.pendingLogins());
        e.family("hostwide_login_refusals_total", Type.COUNTER,
                "Connections closed on accept because a pending-login cap was reached, by cap (total, per_address)")
                .sample(c.refusedOverall(), "cap", "total")
                .sample(c.refusedPerAddress(), "cap", "per_address");
        LoginCounters l = server.loginCounters();
        e.family("hostwide_logins_total", Type.COUNTER, "Successful logins, by session type (normal, discovery)")
                .sample(l.normalLogins(), "type", "normal")
                .sample(l.discoveryLogins(), "type", "discovery");
        Family failures = e.family("hostwide_login_failures_total", Type.COUNTER,
                "Failed logins, by reason (the Login Response status, or timeout)");
        l.failures().forEach((reason, n) -> failures.sample(n, "reason", reason));
    }

    /**
     * The Ceph iSCSI gateway's names (ceph-iscsi's exporter): per LUN per client commands and bytes, LUN sizes,
     * client logins. Ceph names a LUN by its storage object (our backstore); a client with several sessions to one
     * backstore (multipath) is summed, as Ceph's per-ACL counters are.
     */
    private void ceph(Exposition e, Map<String, Device> devices, List<Session> sessions) {
        Map<List<String>, long[]> perClientLun = new LinkedHashMap<>();
        Map<String, Integer> clients = new LinkedHashMap<>();
        for (Session s : sessions) {
            clients.put(s.initiatorName(), 1);
            for (SessionLun sl : s.sessionLuns()) {
                DeviceStats.Snapshot st = sl.stats().snapshot();
                long[] sum = perClientLun.computeIfAbsent(List.of(s.initiatorName(), sl.device().name()),
                        k -> new long[3]);
                sum[0] += st.reads().ops() + st.writes().ops() + st.other().ops();
                sum[1] += st.reads().bytes();
                sum[2] += st.writes().bytes();
            }
        }
        Family iops = e.family("ceph_iscsi_lun_iops", Type.COUNTER, "IOPS per LUN per client (commands; use rate())");
        Family read = e.family("ceph_iscsi_lun_read_bytes", Type.COUNTER, "read bytes per LUN per client");
        Family write = e.family("ceph_iscsi_lun_write_bytes", Type.COUNTER, "write bytes per LUN per client");
        perClientLun.forEach((k, v) -> {
            String[] labels = {"gw_name", gatewayName, "client_iqn", k.get(0), "lun_name", k.get(1)};
            iops.sample(v[0], labels);
            read.sample(v[1], labels);
            write.sample(v[2], labels);
        });
        Family size = e.family("ceph_iscsi_lun_size_bytes", Type.GAUGE, "LUN size (bytes)");
        devices.forEach((name, d) -> size.sample((double) d.blockCount() * d.blockSize(),
                "lun_name", name, "gw_name", gatewayName));
        Family login = e.family("ceph_iscsi_client_login", Type.GAUGE, "iscsi client session active (0=No, 1=Yes)");
        clients.keySet().forEach(c -> login.sample(1, "gw_name", gatewayName, "client_iqn", c));
    }

    private static String[] with(String[] labels, String name, String value) {
        String[] r = java.util.Arrays.copyOf(labels, labels.length + 2);
        r[labels.length] = name;
        r[labels.length + 1] = value;
        return r;
    }
}
