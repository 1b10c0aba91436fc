package io.hostwide.management;

import io.hostwide.management.config.ServeConfig;
import io.hostwide.management.config.ConfigKeyException;
import io.hostwide.management.config.Portal;

import io.hostwide.management.util.Sizes;
import io.hostwide.iscsi.login.ChapPolicy;
import io.hostwide.iscsi.login.ChapSecret;
import io.hostwide.iscsi.server.IscsiTargetServer;
import io.hostwide.tcm.TargetCore;
import io.hostwide.tcm.alua.GatewayAlua;
import io.hostwide.tcm.backstore.RamBudget;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.port.NodeAcl;
import io.hostwide.tcm.port.ScsiTarget;
import io.hostwide.tcm.port.TargetPort;
import io.hostwide.tcm.spi.Backstore;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Turns a checked {@link ServeConfig} into a running target: backstores and
 * devices in a {@link TargetCore}, one target port (TPG 1, or the gateway's port
 * group) per target with its LUNs and ACLs, and an {@link IscsiTargetServer}
 * exporting them on the portals.
 */
public final class TargetAssembly implements AutoCloseable {

    /** The target served when there is no configuration file. */
    public static final String DEFAULT_TARGET = "iqn.2026-12.io.hostwide:target0";
    static final int ISCSI_PROTOCOL_ID = 5; // SPC-4 §7.6.1, table 444: iSCSI
    static final int DEFAULT_QUEUE_DEPTH = 128;
    public static final long DEFAULT_POLL_MICROS = 50;
    static final int DEFAULT_NOP_IN_MILLIS = 15_000; // IscsiTargetServer's own defaults

    private final TargetCore core;
    private final IscsiTargetServer server;
    private final List<String> summary;
    private final Map<String, Device> devices;
    private final Map<String, TargetPort> ports;
    /** The ALUA policies of LUs shared with other gateways (see {@link Gateways}). */
    private final List<GatewayAlua> gateways = new ArrayList<>();
    private ServeConfig current;
    private final long createdNanos = System.nanoTime();
    /** What the RAM backstores' pages may take together, shared by the ones a reload adds. */
    private final RamBudget ramBudget;
    /** What fixes the portals (serve's --listen), or null when the configuration's {@code portals} govern them. */
    private String portalsFixedBy;
    /** This process among the gateways sharing an rbd LU's reservations (see {@link #defaultGatewayId()}). */
    private String gatewayId = defaultGatewayId();

    /**
     * The gateway id of this serve process when nothing names it: host name and PID, unique among the processes
     * that share an image's reservations (it only tells a gateway its own notifies apart, so it need not survive
     * a restart). A configured gateway name, when there is one, goes to {@link #build(ServeConfig, List, Integer,
     * long, String)} instead.
     */
    public static String defaultGatewayId() {
        String host;
        try {
            host = java.net.InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            host = "localhost";
        }
        return host + ":" + ProcessHandle.current().pid();
    }

    private TargetAssembly(TargetCore core, IscsiTargetServer server, List<String> summary,
                           Map<String, Device> devices, Map<String, TargetPort> ports, ServeConfig current,
                           RamBudget ramBudget) {
        this.ramBudget = ramBudget;
        this.core = core;
        this.server = server;
        this.summary = summary;
        this.devices = devices;
        this.ports = ports;
        this.current = current;
    }

    /**
     * With no configuration: one target, LUN 0 = a 1 GiB thin RAM disk, any initiator. Its physical block is its
     * 512-byte logical block: libiscsi's GetLBAStatus.UnmapSingle (1.19) expects, after unmapping LBAs [0, i), a
     * GET LBA STATUS at LBA i + 1 to start its first descriptor at i + LBPPB, which no device with LBPPB &gt; 1 can
     * do without breaking SBC-4 §5.8.2 (the first descriptor contains the starting LBA). Configure
     * {@code "physical_block_size": 4096} for 4 KiB physical blocks (conformance/physical4k.json).
     */
    public static ServeConfig defaultConfig() {
        return new ServeConfig(null, null, null,
                Map.of("ram0", new ServeConfig.Backstore("ram", "1g", null, 512, true, null, null, null, null, null,
                        null, null)),
                List.of(new ServeConfig.Target(DEFAULT_TARGET, null, null,
                        List.of(new ServeConfig.Lun(0, "ram0")), null)), null, null);
    }

    /**
     * Builds everything; nothing listens until {@link #start()}. On failure, whatever was
     * opened (backstore files) is closed again.
     */
    public static TargetAssembly build(ServeConfig cfg, List<InetSocketAddress> portals, Integer queueDepthOverride) {
        return build(cfg, portals, queueDepthOverride, DEFAULT_POLL_MICROS);
    }

    /** As {@link #build(ServeConfig, List, Integer)}, with the readers' busy-poll budget before they block. */
    public static TargetAssembly build(ServeConfig cfg, List<InetSocketAddress> portals, Integer queueDepthOverride,
                                       long pollMicros) {
        return build(cfg, portals, queueDepthOverride, pollMicros, defaultGatewayId());
    }

    /**
     * As {@link #build(ServeConfig, List, Integer, long)}, as gateway {@code gatewayId} (unique per serve process)
     * of the rbd LUs whose reservations are shared through RADOS.
     */
    public static TargetAssembly build(ServeConfig cfg, List<InetSocketAddress> portals, Integer queueDepthOverride,
                                       long pollMicros, String defaultGatewayId) {
        // the gateway's configured name when it has one (unique among the gateways of a LUN), else host:pid
        String gatewayId = cfg.gateway() != null && cfg.gateway().name() != null ? cfg.gateway().name()
                : defaultGatewayId;
        // -Xmx as given, as MemoryBudget counts it (maxMemory() leaves out a survivor space)
        long heap = MemoryBudget.Limits.ofThisJvm().heapBytes();
        RamBudget ramBudget = Backstores.ramBudget(cfg.limits(), heap, MemoryBudget.oldGenBytes(heap, MemoryBudget.oldGenShare()));
        TargetCore core = new TargetCore();
        try {
            List<String> summary = new ArrayList<>();
            Map<String, Device> devices = new LinkedHashMap<>();
            if (cfg.backstores() != null) {
                cfg.backstores().forEach((name, b) -> {
                    Backstore store = Backstores.open(name, b, ramBudget);
                    Device d = core.addDevice(name, store, Backstores.attributes(name, b, store));
                    devices.put(name, d);
                    summary.add("backstore " + name + ": " + d.backstore().describe() + Backstores.flags(b)
                            + shared(name, b, d, gatewayId));
                });
            }
            int qd = queueDepthOverride != null ? queueDepthOverride
                    : cfg.session() != null && cfg.session().queueDepth() != null ? cfg.session().queueDepth()
                    : DEFAULT_QUEUE_DEPTH;
            IscsiTargetServer.Builder sb = IscsiTargetServer.builder(core).queueDepth(qd).readSpin(pollMicros);
            ServeConfig.Session ss = cfg.session();
            if (ss != null && (ss.nopInIntervalMs() != null || ss.nopInTimeoutMs() != null)) {
                sb.nopIn(ss.nopInIntervalMs() == null ? DEFAULT_NOP_IN_MILLIS : ss.nopInIntervalMs(),
                        ss.nopInTimeoutMs() == null ? DEFAULT_NOP_IN_MILLIS : ss.nopInTimeoutMs());
            }
            if (cfg.limits() != null) {
                sb.pendingLogins(cfg.limits().total(), cfg.limits().perAddress());
            }
            Map<String, TargetPort> ports = new LinkedHashMap<>();
            portals.forEach(sb::portal);
            if (cfg.discoveryAuth() != null) {
                sb.discoveryChap(chap(cfg.discoveryAuth()));
            }
            for (ServeConfig.Target t : cfg.targets() == null ? List.<ServeConfig.Target>of() : cfg.targets()) {
                TargetPort port = addTarget(core, cfg.gateway(), t, devices, summary::add);
                sb.export(port, chapOf(t.auth()), aclChap(t), t.alias());
                ports.put(t.name(), port);
                advertise(port);
            }
            List<GatewayAlua> gateways = Gateways.start(cfg.gateway(), core, ports.values(), summary::add);
            summary.add("RAM budget: " + MemoryBudget.mib(ramBudget.limit()) + " for the RAM backstores' pages, "
                    + MemoryBudget.mib(ramBudget.used()) + " reserved at start"
                    + (cfg.limits() != null && cfg.limits().ramBudget() != null ? " (limits.ram_budget)"
                    : " (default: half the heap; limits.ram_budget sets it)"));
            TargetAssembly a = new TargetAssembly(core, sb.build(), summary, devices, ports, cfg, ramBudget);
            a.gatewayId = gatewayId;
            a.gateways.addAll(gateways);
            return a;
        } catch (RuntimeException e) {
            core.close();
            throw e;
        }
    }

    /** Shares {@code d}'s reservations when its backstore says so; the summary's note about it. */
    private static String shared(String name, ServeConfig.Backstore b, Device d, String gatewayId) {
        return Backstores.shareReservations(name, b, d, gatewayId)
                ? ", reservations shared in RADOS as gateway " + gatewayId : "";
    }

    /**
     * Tells the other gateways of each shared LU on {@code port} about it, so that REGISTER AND MOVE through
     * them can name it (SPC-4 §5.13.8). A store that cannot be reached now leaves the LU answering BUSY until it
     * can; it is not a reason to refuse the configuration.
     */
    private static void advertise(TargetPort port) {
        for (io.hostwide.tcm.lu.Lun l : port.luns()) {
            io.hostwide.tcm.lu.SharedReservations sh = l.device().reservations().shared();
            if (sh != null) {
                sh.advertisePort(port.relativePortId(), port.portName());
            }
        }
    }

    /**
     * A target with its one port, LUNs and ACLs in {@code core}; exporting it is the caller's. The port's TPGT and
     * relative target port identifier are the gateway's port group (1 without a {@code gateway} section), so the
     * ports of several gateways exporting the same target never share an identifier (SPC-4 §3.1.120).
     */
    private static TargetPort addTarget(TargetCore core, ServeConfig.Gateway gateway, ServeConfig.Target t,
                                        Map<String, Device> devices, java.util.function.Consumer<String> summary) {
        ScsiTarget st = core.addTarget(t.name());
        int portGroup = ServeConfig.Gateway.portGroupOf(gateway);
        st.firstRelativePortId(portGroup);
        TargetPort port = core.addPort(st, portGroup, ISCSI_PROTOCOL_ID);
        for (ServeConfig.Lun l : t.luns() == null ? List.<ServeConfig.Lun>of() : t.luns()) {
            port.addLun(l.lun(), devices.get(l.backstore()));
            summary.accept("target " + t.name() + " LUN " + l.lun() + " = " + l.backstore());
        }
        applyAcls(port, t);
        return port;
    }

    private TargetPort addTarget(ServeConfig.Target t, Map<String, Device> devices,
                                 java.util.function.Consumer<String> summary) {
        return addTarget(core, current.gateway(), t, devices, summary);
    }

    /** The ACLs' own CHAP by initiator name (LIO's node ACL auth): what those initiators prove instead of the target's. */
    static Map<String, ChapPolicy> aclChap(ServeConfig.Target t) {
        Map<String, ChapPolicy> m = new java.util.HashMap<>();
        for (ServeConfig.Acl a : t.acls() == null ? List.<ServeConfig.Acl>of() : t.acls()) {
            if (a.auth() != null) {
                m.put(a.initiator(), chapOf(a.auth()));
            }
        }
        return m;
    }

    private static ChapPolicy chapOf(ServeConfig.Chap c) {
        return c == null ? ChapPolicy.NONE : chap(c);
    }

    /** Replaces a port's ACLs with the configured ones; no ACLs means any initiator (demo mode). */
    static void applyAcls(TargetPort port, ServeConfig.Target t) {
        if (t.acls() == null) {
            port.demoMode(true, false);
            return;
        }
        port.demoMode(false, false);
        for (ServeConfig.Acl a : t.acls()) {
            NodeAcl acl = port.addAcl(a.initiator());
            for (ServeConfig.MappedLun m : a.luns() == null ? List.<ServeConfig.MappedLun>of() : a.luns()) {
                acl.map(m.mappedLun() == null ? m.lun() : m.mappedLun(), m.lun(), Boolean.TRUE.equals(m.readOnly()));
            }
        }
    }

    /**
     * Applies a new configuration to the running target without a restart (SIGHUP, {@code hostwide admin reload},
     * every management API call): only what differs is touched, so sessions of untouched targets never notice.
     * Portals open and close live (unless {@link #fixPortals fixed} by --listen): new ones first, so that one that
     * cannot be bound refuses the whole change; removed ones last. Session settings, limits and an exported
     * backstore's geometry or kind need a restart: such a change is
     * refused as a whole, before anything is touched (see {@link ConfigDiff#refuseRestartOnlyChanges()}).
     *
     * @return one line per change made (empty when nothing changed)
     */
    public synchronized List<String> reload(ServeConfig next) {
        ConfigDiff diff = new ConfigDiff(current, next);
        diff.refuseRestartOnlyChanges();
        boolean portalsChange = !Objects.equals(current.portals(), next.portals());
        if (portalsChange && portalsFixedBy != null) {
            throw new PortalException(PortalException.Kind.FIXED, null, "portals are fixed by serve's "
                    + portalsFixedBy + ": they change only with a restart (without --listen, the configuration's "
                    + "\"portals\" are used and can change live)", null);
        }
        List<String> changes = new ArrayList<>();
        List<InetSocketAddress> opened = portalsChange ? openPortals(next, changes) : List.of();
        try {
            applyReload(next, changes);
        } catch (RuntimeException e) {
            opened.forEach(server::removePortal);
            throw e;
        }
        if (portalsChange) {
            closePortals(next, changes);
        }
        current = next;
        return changes;
    }

    /**
     * Says that the portals are fixed by {@code by} (serve's {@code --listen ...}): a change of the configuration's
     * {@code portals} is then refused rather than applied, since the command line would win at the next start.
     */
    public synchronized void fixPortals(String by) {
        this.portalsFixedBy = by;
    }

    /** What fixes the portals, or null when they follow the configuration. */
    public synchronized String portalsFixedBy() {
        return portalsFixedBy;
    }

    /** Opens the portals {@code next} has and the running configuration has not; on failure none stays open. */
    private List<InetSocketAddress> openPortals(ServeConfig next, List<String> changes) {
        List<InetSocketAddress> was = resolved(Portal.ofConfig(current));
        List<InetSocketAddress> opened = new ArrayList<>();
        for (Portal p : Portal.ofConfig(next)) {
            InetSocketAddress a = p.resolve();
            if (was.contains(a) || opened.contains(a)) {
                continue;
            }
            try {
                String overlap = overlapping(p);
                if (overlap != null) {
                    throw new PortalException(PortalException.Kind.IN_USE, p.toString(), "cannot listen on " + p
                            + ": this server's portal " + overlap + " holds that port on "
                            + (p.isWildcard() ? "one of its addresses" : "every address") + " (delete it first)", null);
                }
                server.addPortal(a);
                opened.add(a);
                changes.add("portal " + p + " opened");
            } catch (IOException | RuntimeException e) {
                opened.forEach(server::removePortal);
                if (e instanceof PortalException pe) {
                    throw pe;
                }
                boolean inUse = e instanceof java.net.BindException && String.valueOf(e.getMessage()).contains("in use");
                throw new PortalException(inUse ? PortalException.Kind.IN_USE : PortalException.Kind.CANNOT_BIND,
                        p.toString(), "cannot listen on " + p + ": " + e.getMessage()
                        + (inUse ? " (another process holds it)" : ""), e);
            }
        }
        return opened;
    }

    /**
     * The open portal that takes {@code p}'s port on an overlapping address, or null: a wildcard covers every address
     * of its family, and the IPv6 wildcard (::, a dual-stack socket, as targetcli's default portal ::0) IPv4 too.
     */
    private String overlapping(Portal p) {
        InetSocketAddress a = p.resolve();
        for (InetSocketAddress b : server.boundAddresses()) {
            if (b.getPort() == a.getPort() && !b.equals(a) && (covers(b, a) || covers(a, b))) {
                return b.getAddress().getHostAddress() + ":" + b.getPort();
            }
        }
        return null;
    }

    private static boolean covers(InetSocketAddress wildcard, InetSocketAddress other) {
        java.net.InetAddress w = wildcard.getAddress();
        return w.isAnyLocalAddress() && (w instanceof java.net.Inet6Address
                || other.getAddress() instanceof java.net.Inet4Address);
    }

    /** Closes the portals the running configuration has and {@code next} has not (see IscsiTargetServer#removePortal). */
    private void closePortals(ServeConfig next, List<String> changes) {
        List<InetSocketAddress> keep = resolved(Portal.ofConfig(next));
        for (Portal p : Portal.ofConfig(current)) {
            InetSocketAddress a = p.resolve();
            if (!keep.contains(a) && server.removePortal(a)) {
                changes.add("portal " + p + " closed (sessions logged in through it go on)");
            }
        }
    }

    private static List<InetSocketAddress> resolved(List<Portal> portals) {
        return portals.stream().map(Portal::resolve).toList();
    }

    /** Everything of {@link #reload} but the portals. */
    private void applyReload(ServeConfig next, List<String> changes) {
        addBackstores(next, changes);
        changeBackstores(next, changes);
        Map<String, ServeConfig.Target> was = ConfigDiff.targets(current);
        Map<String, ServeConfig.Target> now = ConfigDiff.targets(next);
        was.keySet().stream().filter(n -> !now.containsKey(n)).toList().forEach(n -> {
            server.unexport(n); // its sessions end first: no command reaches a LUN being dismantled
            core.removeTarget(n);
            ports.remove(n);
            changes.add("removed target " + n);
        });
        now.forEach((name, t) -> {
            ServeConfig.Target old = was.get(name);
            if (old == null) {
                ports.put(name, addTarget(t, devices, line -> { })); // "added target" says it
                advertise(ports.get(name));
                server.export(ports.get(name), chapOf(t.auth()), aclChap(t), t.alias());
                changes.add("added target " + name);
            } else if (!old.equals(t)) { // unchanged targets are not even looked at: 1,000 targets stay cheap
                TargetPort port = ports.get(name);
                changes.addAll(ConfigDiff.applyLuns(port, t, devices));
                advertise(port);
                changes.addAll(ConfigDiff.applyAcls(port, old, t));
                if (!Objects.equals(old.auth(), t.auth()) || !Objects.equals(old.alias(), t.alias())
                        || !aclChap(old).equals(aclChap(t))) {
                    server.export(port, chapOf(t.auth()), aclChap(t), t.alias());
                    changes.add(name + ": " + (t.auth() == null ? "no CHAP" : "CHAP user " + t.auth().user())
                            + (t.alias() == null ? "" : ", alias " + t.alias()) + " for new logins");
                }
            }
        });
        Gateways.reconcile(current.gateway(), ports.values(), gateways, changes::add); // before their stores close
        removeBackstores(next, changes);
        if (!Objects.equals(current.discoveryAuth(), next.discoveryAuth())) {
            server.discoveryChap(chapOf(next.discoveryAuth()));
            changes.add("discovery: " + (next.discoveryAuth() == null ? "no CHAP" : "CHAP user "
                    + next.discoveryAuth().user()) + " for new logins");
        }
    }

    /** The configuration in force: the last one built or applied. */
    public synchronized ServeConfig current() {
        return current;
    }

    /** Opens the new configuration's new backstores; if one fails, those opened here are closed again. */
    private void addBackstores(ServeConfig next, List<String> changes) {
        List<String> added = new ArrayList<>();
        try {
            ConfigDiff.stores(next).forEach((name, b) -> {
                if (!devices.containsKey(name)) {
                    Backstore store = Backstores.open(name, b, ramBudget);
                    Device d = core.addDevice(name, store, Backstores.attributes(name, b, store));
                    devices.put(name, d);
                    added.add(name);
                    changes.add("added backstore " + name + ": " + d.backstore().describe() + Backstores.flags(b)
                            + shared(name, b, d, gatewayId));
                }
            });
        } catch (RuntimeException e) {
            for (String name : added) {
                devices.remove(name);
                try {
                    core.removeDevice(name);
                } catch (IOException | RuntimeException closing) {
                    e.addSuppressed(closing);
                }
            }
            throw e;
        }
    }

    /** Live changes of existing backstores: size (CAPACITY DATA HAS CHANGED on every nexus), write_protect, removable. */
    private void changeBackstores(ServeConfig next, List<String> changes) {
        Map<String, ServeConfig.Backstore> old = ConfigDiff.stores(current);
        ConfigDiff.stores(next).forEach((name, b) -> {
            ServeConfig.Backstore was = old.get(name);
            if (was == null || was.equals(b)) {
                return;
            }
            Device d = devices.get(name);
            if (!Objects.equals(was.size(), b.size()) && b.size() != null) {
                long bytes = Sizes.parseBytes("backstores." + name + ".size", b.size());
                try {
                    d.backstore().resize(bytes);
                } catch (IOException e) {
                    throw new ConfigKeyException("backstores." + name + ".size", ": cannot resize: "
                            + ConfigKeyException.reason(e), e);
                }
                d.refreshCapacity(); // SPC-4: CAPACITY DATA HAS CHANGED (2Ah/09h) on every nexus
                changes.add("backstore " + name + " resized to " + d.blockCount() * d.blockSize() + " bytes");
            }
            if (!Objects.equals(was.writeProtect(), b.writeProtect())) {
                d.attributes().writeProtect(Boolean.TRUE.equals(b.writeProtect()));
                changes.add("backstore " + name + (Boolean.TRUE.equals(b.writeProtect()) ? " write-protected"
                        : " writable"));
            }
            if (!Objects.equals(was.removable(), b.removable())) {
                d.attributes().removable(Boolean.TRUE.equals(b.removable()));
                changes.add("backstore " + name + (Boolean.TRUE.equals(b.removable()) ? " removable" : " fixed"));
            }
        });
    }

    /** Closes backstores the new configuration no longer has; no LUN exports them by now. */
    private void removeBackstores(ServeConfig next, List<String> changes) {
        Map<String, ServeConfig.Backstore> keep = ConfigDiff.stores(next);
        for (String name : List.copyOf(devices.keySet())) {
            if (!keep.containsKey(name)) {
                try {
                    core.removeDevice(name);
                } catch (IOException e) {
                    changes.add("removed backstore " + name + " (closing it failed: " + e.getMessage() + ")");
                    devices.remove(name);
                    continue;
                }
                devices.remove(name);
                changes.add("removed backstore " + name);
            }
        }
    }

    /** Per-backstore I/O counters and latency percentiles (see {@link StatsReport}). */
    public synchronized Map<String, Object> stats() {
        return StatsReport.of(devices, System.nanoTime() - createdNanos);
    }

    /** {@link #status(boolean)}: the summary. */
    public synchronized Map<String, Object> status() {
        return status(false);
    }

    /**
     * What {@code hostwide admin status} shows, no secrets: portals, connections, memory, and counts of backstores,
     * targets, LUNs, ACLs and sessions, a few hundred bytes however many targets there are (at 1,000 targets the
     * listing is hundreds of kilobytes); with {@code full}, also every target with its LUNs and every session.
     */
    public synchronized Map<String, Object> status(boolean full) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("portals", server.boundAddresses().stream()
                .map(a -> a.getAddress().getHostAddress() + ":" + a.getPort()).toList());
        if (portalsFixedBy != null) {
            m.put("portals_fixed_by", portalsFixedBy);
        }
        Map<String, Object> counts = new LinkedHashMap<>();
        counts.put("backstores", devices.size());
        counts.put("targets", ports.size());
        counts.put("luns", ports.values().stream().mapToInt(p -> p.luns().size()).sum());
        counts.put("acls", ConfigDiff.targets(current).values().stream()
                .mapToInt(t -> t.acls() == null ? 0 : t.acls().size()).sum());
        counts.put("sessions", core.sessions().size());
        m.put("counts", counts);
        if (!full) {
            statusTail(m);
            return m;
        }
        List<Map<String, Object>> targets = new ArrayList<>();
        ports.forEach((name, port) -> {
            Map<String, Object> t = new LinkedHashMap<>();
            t.put("name", name);
            t.put("any_initiator", port.demoMode());
            t.put("luns", port.luns().stream().map(l -> {
                Map<String, Object> lm = new LinkedHashMap<>();
                lm.put("lun", l.lunNumber());
                lm.put("backstore", l.device().name());
                lm.put("describe", l.device().backstore().describe());
                return lm;
            }).toList());
            targets.add(t);
        });
        m.put("targets", targets);
        statusTail(m);
        m.put("sessions", core.sessions().stream().map(s -> {
            Map<String, Object> sm = new LinkedHashMap<>();
            sm.put("initiator", s.initiatorName());
            sm.put("initiator_port", s.initiatorPortName());
            sm.put("target_port", s.port().portName());
            return sm;
        }).toList());
        return m;
    }

    private void statusTail(Map<String, Object> m) {
        IscsiTargetServer.ConnectionCounts counts = server.connectionCounts();
        Map<String, Object> conns = new LinkedHashMap<>();
        conns.put("open", counts.open());
        conns.put("pending_logins", counts.pendingLogins());
        conns.put("refused_overall", counts.refusedOverall());
        conns.put("refused_per_address", counts.refusedPerAddress());
        m.put("connections", conns);
        Map<String, Object> ram = new LinkedHashMap<>();
        ram.put("limit_bytes", ramBudget.limit());
        ram.put("used_bytes", ramBudget.used());
        ram.put("free_bytes", ramBudget.limit() - ramBudget.used());
        m.put("ram_budget", ram);
    }

    private static ChapPolicy chap(ServeConfig.Chap c) {
        return new ChapPolicy(ChapSecret.of(c.user(), c.secret()),
                c.mutualUser() == null ? null : ChapSecret.of(c.mutualUser(), c.mutualSecret()));
    }

    public void start() throws IOException {
        server.start();
    }

    public List<InetSocketAddress> boundAddresses() {
        return server.boundAddresses();
    }

    public List<String> summary() {
        return summary;
    }

    public TargetCore core() {
        return core;
    }

    public IscsiTargetServer server() {
        return server;
    }

    /** Stops listening, ends every connection (their commands end once), then closes the core and backstores. */
    /**
     * Graceful stop: asks every initiator to log out (iSCSI Async Message, AsyncEvent 1) and waits up to
     * {@code logoutWait} for them to do so before closing what is left. {@link #close()} afterwards is a no-op
     * for the server and closes the core.
     */
    public void shutdown(java.time.Duration logoutWait) {
        server.shutdown(logoutWait);
    }

    @Override
    public void close() {
        gateways.forEach(GatewayAlua::close);
        try {
            server.close();
        } finally {
            core.close();
        }
    }
}
