package io.hostwide.cli.serve;

import io.hostwide.management.TargetAssembly;
import io.hostwide.management.ServeWarnings;
import io.hostwide.management.MemoryBudget;
import io.hostwide.management.Admin;
import io.hostwide.management.AdminSocket;
import io.hostwide.management.metrics.MetricsServer;
import io.hostwide.management.metrics.ServeMetrics;
import io.hostwide.management.api.ApiHttpServer;
import io.hostwide.management.api.JsonRpc;
import io.hostwide.management.api.ManagementApi;
import io.hostwide.management.util.Sizes;

import io.hostwide.management.config.ServeConfig;
import io.hostwide.management.config.ServeConfigLoader;
import io.hostwide.management.config.ConfigWriter;
import io.hostwide.management.lio.ConfigFiles;
import io.hostwide.management.lio.ConfigFormat;
import io.hostwide.management.lio.LioExport;
import io.hostwide.management.config.Portal;

import io.hostwide.cli.util.Interrupts;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/** {@code hostwide serve}: the iSCSI target. */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = {"Export LUNs over iSCSI (RFC 7143) until Ctrl-C.",
                "Without --config: target " + TargetAssembly.DEFAULT_TARGET
                        + " with LUN 0 = 1 GiB thin RAM disk, open to any initiator, on 127.0.0.1:3260."})
public final class ServeCommand implements Callable<Integer> {

    /** How long a graceful stop waits for initiators to log out after asking them to (RFC 7143 §11.9.1). */
    private static final java.time.Duration LOGOUT_WAIT = java.time.Duration.ofSeconds(3);

    @Option(names = "--listen", paramLabel = "HOST:PORT",
            description = "Portal to listen on; repeatable (default: the config's portals, else 127.0.0.1:3260). "
                    + "Given, it fixes the portals: live portal changes (admin portal create, targetcli "
                    + "tpg1/portals) are refused; without it they change the config's \"portals\" live")
    List<String> listen;

    @Option(names = "--config", paramLabel = "FILE", description = "JSON configuration: hostwide's, or LIO's "
            + "saveconfig.json (rtslib-fb format, told apart by its keys; see README: Configuration)")
    Path config;

    @Option(names = "--queue-depth", paramLabel = "N",
            description = "Commands one session may have outstanding (its CmdSN window; default: config or 128)")
    Integer queueDepth;

    @Option(names = "--poll-us", paramLabel = "MICROS", defaultValue = "" + TargetAssembly.DEFAULT_POLL_MICROS,
            description = "How long a connection reader busy-polls for the next command before it blocks "
                    + "(0..10000; 0 = never poll; default: ${DEFAULT-VALUE})")
    long pollMicros;

    @Option(names = "--admin-socket", paramLabel = "PATH",
            description = "Unix socket for 'hostwide admin' (default: hostwide-<first port>.sock in "
                    + "$XDG_RUNTIME_DIR/hostwide, else /run/hostwide for root, else <temp dir>/hostwide-<user>: a "
                    + "directory only this user may use)")
    Path adminSocket;

    @Option(names = "--memory", paramLabel = "SIZE",
            description = "Heap plus direct memory serve may use, e.g. 1g (at least 256m): a quarter, at least 64m, is "
                    + "direct memory for connection and command buffers, the rest heap (RAM backstore pages live "
                    + "there). The hostwide launcher starts the JVM with these limits (-Xmx, "
                    + "-XX:MaxDirectMemorySize); its default is half the machine's memory, at most 3g. With java "
                    + "-jar, start java with the options serve names. See README: Memory")
    String memory;

    @Option(names = "--insecure",
            description = "Allow listening on a non-loopback address for targets without CHAP, and serving metrics "
                    + "beyond loopback")
    boolean insecure;

    @Option(names = "--metrics", paramLabel = "HOST:PORT",
            description = "Serve Prometheus metrics at http://HOST:PORT/metrics (a bare PORT means 127.0.0.1; "
                    + "default: the config's \"metrics\", else none). Beyond loopback only with --insecure")
    String metrics;

    @Option(names = "--metrics-compat", paramLabel = "NAMES",
            description = "Also export other products' metric names: ceph-iscsi (Ceph iSCSI gateway dashboards) "
                    + "or none (default: the config's, else none)")
    String metricsCompat;

    @Option(names = "--api", paramLabel = "HOST:PORT",
            description = "Also serve the management API (JSON-RPC 2.0, POST /) over HTTP on HOST:PORT (a bare PORT "
                    + "means 127.0.0.1). Beyond loopback only with --api-token-file")
    String api;

    @Option(names = "--api-token-file", paramLabel = "FILE",
            description = "A file (mode 0600) whose first line is the bearer token every --api request must carry "
                    + "(Authorization: Bearer TOKEN; at least 32 characters, e.g. openssl rand -hex 32)")
    Path apiTokenFile;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** The memory budget in force (null when the JVM's own limits apply), for status. */
    private MemoryBudget budget;

    @Override
    public Integer call() throws Exception {
        ConfigFiles.Loaded loaded = config == null ? null : ConfigFiles.load(config);
        ServeConfig cfg = loaded == null ? TargetAssembly.defaultConfig() : loaded.config();
        List<Portal> portals = portals(cfg);
        if (queueDepth != null && (queueDepth < 1 || queueDepth > 4096)) {
            throw new IllegalArgumentException("--queue-depth: " + queueDepth + " is out of range (1..4096)");
        }
        if (pollMicros < 0 || pollMicros > 10_000) {
            throw new IllegalArgumentException("--poll-us: " + pollMicros + " is out of range (0..10000)");
        }
        ServeWarnings.refuseOpenExposure(cfg, portals, insecure);
        Portal metricsAt = metricsPortal(cfg);
        ServeMetrics.Compat compat = metricsCompat(cfg);
        ServeWarnings.refuseOpenMetrics(metricsAt, insecure);
        Portal apiAt = api == null ? null : Portal.parseHttp("--api", api);
        if (apiTokenFile != null && apiAt == null) {
            throw new IllegalArgumentException("--api-token-file: only with --api");
        }
        String apiToken = apiTokenFile == null ? null : ApiHttpServer.readToken(apiTokenFile);
        if (apiAt != null && apiToken == null && !apiAt.isLoopback()) {
            throw new IllegalArgumentException("--api: refusing to serve the management API on " + apiAt
                    + " without a token: it can create, change and delete every target; give --api-token-file");
        }
        List<String> warnings = new ArrayList<>(loaded == null ? List.of() : loaded.warnings());
        warnings.addAll(ServeWarnings.of(cfg, portals, insecure, config));
        if (portals.isEmpty()) {
            warnings.add("no portals (the configuration's \"portals\" is empty): no initiator can connect until one "
                    + "is created (hostwide admin portal create IP [PORT])");
        }
        warnings.addAll(ServeWarnings.ofMetrics(metricsAt));
        budget = memoryBudget(MemoryBudget.Limits.ofThisJvm(), warnings);
        if (budget != null) {
            String ramBudget = cfg.limits() == null ? null : cfg.limits().ramBudget();
            warnings.addAll(budget.warnings(MemoryBudget.ramBytes(cfg), ramBudget == null ? null
                    : Sizes.parseBytes("limits.ram_budget", ramBudget)));
        }
        var err = spec.commandLine().getErr();
        warnings.forEach(w -> err.println("hostwide serve: warning: " + w));
        err.flush();
        List<InetSocketAddress> addresses = new ArrayList<>();
        for (Portal p : portals) {
            addresses.add(p.resolve());
        }
        Interrupts interrupts = Interrupts.install();
        var out = spec.commandLine().getOut();
        java.util.function.Supplier<TargetAssembly> build =
                () -> TargetAssembly.build(cfg, addresses, queueDepth, pollMicros);
        Thread.UncaughtExceptionHandler previous = FatalErrors.install(System.err);
        try (TargetAssembly assembly = loaded == null ? build.get() : ServeConfigLoader.located(loaded.places(), build)) {
            try {
                assembly.start();
            } catch (BindException e) {
                throw new IllegalArgumentException((listening() ? "--listen" : "--config portals") + ": cannot listen on "
                        + portals + ": " + e.getMessage());
            }
            if (listening()) {
                assembly.fixPortals("--listen " + String.join(" ", listen));
            }
            assembly.summary().forEach(line -> out.println("hostwide serve: " + line));
            out.println("hostwide serve: " + MemoryBudget.line(budget, MemoryBudget.Limits.ofThisJvm()));
            Admin admin = new Admin(assembly, config, budget);
            Path socket = adminSocket != null ? adminSocket : AdminSocket.defaultPath(assembly.boundAddresses()
                    .isEmpty() ? Portal.DEFAULT_PORT : assembly.boundAddresses().get(0).getPort());
            // API calls persist to --config (written back atomically); without it they live in memory until config_save
            // and must leave a configuration serve would start from: no target without CHAP beyond loopback
            // a configuration read in LIO's format is written back in it, so targetcli and Proxmox still read it
            ConfigWriter writer = loaded != null && loaded.format() == ConfigFormat.LIO
                    ? new ConfigWriter(c -> LioExport.convert(c).text()) : new ConfigWriter();
            // the exposure rule follows the portals a change would leave open: --listen's, else the changed config's
            JsonRpc rpc = new JsonRpc(new ManagementApi(assembly, admin, config, writer)
                    .policy(next -> ServeWarnings.refuseOpenExposure(next, listening() ? portals
                            : Portal.ofConfig(next), insecure))
                    .portalWarnings(opened -> ServeWarnings.ofPortals(assembly.current(), opened, insecure)));
            try (MetricsServer metricsServer = startMetrics(metricsAt, compat, assembly);
                 ApiHttpServer apiServer = startApi(apiAt, apiToken, rpc);
                 AdminSocket socketServer = AdminSocket.open(socket, admin::handle, rpc::handle)) {
                if (apiServer != null) {
                    out.println("hostwide serve: management API on http://" + join(List.of(apiServer.address()))
                            + "/ (JSON-RPC 2.0" + (apiToken != null ? ", bearer token required)" : ")"));
                }
                if (metricsServer != null) {
                    InetSocketAddress m = metricsServer.address();
                    out.println("hostwide serve: metrics on http://" + join(List.of(m)) + "/metrics"
                            + (compat == ServeMetrics.Compat.CEPH_ISCSI ? " (with ceph-iscsi names)" : ""));
                }
                out.println("hostwide serve: listening on " + (assembly.boundAddresses().isEmpty()
                        ? "no portal yet (admin portal create adds one)" : join(assembly.boundAddresses()))
                        + "; admin socket " + socketServer.path() + " (Ctrl-C stops, SIGHUP reloads --config)");
                out.flush();
                AtomicBoolean reload = Signals.onHangup(w -> out.println("hostwide serve: " + w));
                while (!interrupts.awaitStop(200, TimeUnit.MILLISECONDS)) {
                    // Serving happens on the server's own threads; this one waits for signals.
                    if (reload.getAndSet(false)) {
                        out.println("hostwide serve: SIGHUP: " + admin.reloadQuietly());
                        out.flush();
                    }
                }
            }
            out.println("hostwide serve: SIG" + interrupts.signal() + ", asking initiators to log out (up to "
                    + LOGOUT_WAIT.toSeconds() + " s), then closing sessions");
            out.flush();
            assembly.shutdown(LOGOUT_WAIT);
        } finally {
            Thread.setDefaultUncaughtExceptionHandler(previous); // serve run inside another program (tests)
        }
        out.println("hostwide serve: stopped");
        out.flush();
        return 0;
    }

    /**
     * The budget serve runs under: {@code --memory}, which the JVM must enforce (else a usage error naming the JVM
     * options it needs), or the launcher's default (a mismatch is then a warning: HOSTWIDE_JAVA_OPTS may have set
     * other limits on purpose), or none when the JVM was started by hand: its own limits then apply, and the
     * startup line about memory says so.
     */
    MemoryBudget memoryBudget(MemoryBudget.Limits jvm, List<String> warnings) {
        if (memory != null) {
            MemoryBudget b = MemoryBudget.of(io.hostwide.management.util.Sizes.parseBytes("--memory", memory));
            String problem = b.mismatch(jvm);
            if (problem != null) {
                throw new IllegalArgumentException(problem);
            }
            return b;
        }
        String applied = System.getProperty(MemoryBudget.PROPERTY);
        if (applied != null) {
            MemoryBudget b = MemoryBudget.of(io.hostwide.management.util.Sizes.parseBytes(MemoryBudget.PROPERTY, applied));
            String problem = b.mismatch(jvm);
            if (problem != null) {
                warnings.add(problem);
            }
            return b;
        }
        return null;
    }

    /** {@code --metrics}, else the config's {@code metrics.listen}, else none. */
    private Portal metricsPortal(ServeConfig cfg) {
        if (metrics != null) {
            return Portal.parseHttp("--metrics", metrics);
        }
        if (cfg.metrics() != null && cfg.metrics().listen() != null) {
            return Portal.parseHttp("--config metrics.listen", cfg.metrics().listen());
        }
        return null;
    }

    private ServeMetrics.Compat metricsCompat(ServeConfig cfg) {
        if (metricsCompat != null) {
            return ServeMetrics.Compat.parse("--metrics-compat", metricsCompat);
        }
        if (cfg.metrics() != null && cfg.metrics().compat() != null) {
            return ServeMetrics.Compat.parse("--config metrics.compat", cfg.metrics().compat());
        }
        return ServeMetrics.Compat.NONE;
    }

    private static ApiHttpServer startApi(Portal at, String token, JsonRpc rpc) throws java.io.IOException {
        if (at == null) {
            return null;
        }
        try {
            return ApiHttpServer.start(at.resolve(), rpc::handle, token);
        } catch (BindException e) {
            throw new IllegalArgumentException("--api: cannot listen on " + at + ": " + e.getMessage());
        }
    }

    private static MetricsServer startMetrics(Portal at, ServeMetrics.Compat compat, TargetAssembly assembly)
            throws java.io.IOException {
        if (at == null) {
            return null;
        }
        ServeMetrics m = new ServeMetrics(assembly.core(), assembly.server(), compat, hostName());
        try {
            return MetricsServer.start(at.resolve(), m::scrape);
        } catch (BindException e) {
            throw new IllegalArgumentException("--metrics: cannot listen on " + at + ": " + e.getMessage());
        }
    }

    /** Ceph's gw_name: this host's name. */
    private static String hostName() {
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.net.UnknownHostException e) {
            return "localhost";
        }
    }

    private boolean listening() {
        return listen != null && !listen.isEmpty();
    }

    /** --listen's portals, else the configuration's (an empty list: none), else 127.0.0.1:3260. */
    private List<Portal> portals(ServeConfig cfg) {
        List<Portal> result = new ArrayList<>();
        if (listening()) {
            for (String l : listen) {
                result.add(Portal.parse("--listen", l));
            }
            return result;
        }
        return Portal.ofConfig(cfg);
    }

    private static String join(List<InetSocketAddress> addrs) {
        StringBuilder sb = new StringBuilder();
        for (InetSocketAddress a : addrs) {
            sb.append(sb.isEmpty() ? "" : ", ").append(a.getAddress().getHostAddress()).append(':').append(a.getPort());
        }
        return sb.toString();
    }

}
