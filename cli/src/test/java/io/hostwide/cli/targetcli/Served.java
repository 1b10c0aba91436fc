package io.hostwide.cli.targetcli;

import io.hostwide.management.Admin;
import io.hostwide.management.AdminSocket;
import io.hostwide.management.ServeWarnings;
import io.hostwide.management.config.Portal;
import io.hostwide.management.TargetAssembly;
import io.hostwide.management.api.JsonRpc;
import io.hostwide.management.api.ManagementApi;
import io.hostwide.management.config.ConfigWriter;
import io.hostwide.management.config.ServeConfigLoader;
import io.hostwide.management.lio.ConfigFiles;
import io.hostwide.management.lio.ConfigFormat;
import io.hostwide.management.lio.LioExport;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringReader;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Test equipment: serve as {@code hostwide serve --config FILE --listen 127.0.0.1:0} assembles it (the file's
 * format written back, the API on an admin socket), and {@code hostwide targetcli} run against its socket.
 */
final class Served implements AutoCloseable {
    final TargetAssembly assembly;
    final AdminSocket socket;

    record Run(int status, String out, String err) {
    }

    private Served(TargetAssembly assembly, AdminSocket socket) {
        this.assembly = assembly;
        this.socket = socket;
    }

    static Served start(Path config, Path sock) throws IOException {
        return start(config, sock, true);
    }

    /**
     * As {@code hostwide serve --config FILE} without --listen: the file's portals are listened on and change live,
     * under serve's rule that beyond loopback every target has CHAP (no --insecure).
     */
    static Served startOnConfigPortals(Path config, Path sock) throws IOException {
        return start(config, sock, false);
    }

    private static Served start(Path config, Path sock, boolean listen) throws IOException {
        ConfigFiles.Loaded loaded = ConfigFiles.load(config);
        List<InetSocketAddress> portals = listen ? List.of(new InetSocketAddress("127.0.0.1", 0))
                : Portal.ofConfig(loaded.config()).stream().map(Portal::resolve).toList();
        TargetAssembly a = ServeConfigLoader.located(loaded.places(), () -> TargetAssembly.build(loaded.config(),
                portals, null));
        try {
            a.start();
            if (listen) {
                a.fixPortals("--listen 127.0.0.1:0");
            }
            Admin admin = new Admin(a, config, null);
            ConfigWriter writer = loaded.format() == ConfigFormat.LIO
                    ? new ConfigWriter(c -> LioExport.convert(c).text()) : new ConfigWriter();
            JsonRpc rpc = new JsonRpc(new ManagementApi(a, admin, config, writer)
                    .policy(next -> ServeWarnings.refuseOpenExposure(next, listen ? List.of(Portal.DEFAULT)
                            : Portal.ofConfig(next), false))
                    .portalWarnings(opened -> ServeWarnings.ofPortals(a.current(), opened, false)));
            return new Served(a, AdminSocket.open(sock, admin::handle, rpc::handle));
        } catch (IOException | RuntimeException e) {
            a.close();
            throw e;
        }
    }

    int port() {
        return assembly.boundAddresses().get(0).getPort();
    }

    /** {@code hostwide targetcli WORDS...}, one command, through the picocli command as a user runs it. */
    Run oneShot(String... words) {
        var cl = io.hostwide.cli.Main.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        List<String> all = new ArrayList<>(List.of("targetcli", "--socket", socket.path().toString()));
        all.addAll(List.of(words));
        return new Run(cl.execute(all.toArray(String[]::new)), out.toString(), err.toString());
    }

    /** One management API call's result over the socket (tests read what a command left behind). */
    static com.fasterxml.jackson.databind.JsonNode api(Served s, String method, String params) {
        return Api.socket(s.socket.path()).call(method, params == null ? null
                : (com.fasterxml.jackson.databind.node.ObjectNode) JsonRpc.parse(params));
    }

    /** {@code echo SCRIPT | hostwide targetcli}. */
    Run script(String script) throws IOException {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status = TargetcliCommand.run(Api.socket(socket.path()), List.of(),
                new BufferedReader(new StringReader(script)), new PrintWriter(out), new PrintWriter(err));
        return new Run(status, out.toString(), err.toString());
    }

    /** libiscsi's {@code iscsi-ls -s} of the portal: targets with their LUNs (libiscsi-bin). */
    String iscsiLs() throws IOException, InterruptedException {
        return iscsiLs(port());
    }

    /** The same through the portal on {@code port}. */
    static String iscsiLs(int port) throws IOException, InterruptedException {
        return libiscsi("iscsi-ls", "-s", "iscsi://127.0.0.1:" + port + "/").out();
    }

    /** A libiscsi-bin tool's exit status and output (stdout and stderr together); skips the test without it. */
    static Run libiscsi(String tool, String... args) throws IOException, InterruptedException {
        Path bin = Path.of("/usr/bin", tool);
        assumeTrue(Files.isExecutable(bin), "libiscsi-bin's " + tool + " is not installed");
        List<String> cmd = new ArrayList<>(List.of(bin.toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as(tool + " finished").isTrue();
        return new Run(p.exitValue(), out, "");
    }

    @Override
    public void close() {
        socket.close();
        assembly.close();
    }

    /** A loop device over a sparse file, detached by its own name; skips the test without root and losetup. */
    record Loop(Path device) implements AutoCloseable {
        static Loop attach(Path dir, long bytes) throws IOException, InterruptedException {
            assumeTrue(Files.exists(Path.of("/dev/loop-control")) && (Files.isExecutable(Path.of("/usr/sbin/losetup"))
                    || Files.isExecutable(Path.of("/sbin/losetup"))) && run("id", "-u").trim().equals("0"),
                    "loop device tests skipped: needs root, losetup and /dev/loop-control");
            Path img = Files.createTempFile(dir, "zvol", ".img");
            try (var raf = new java.io.RandomAccessFile(img.toFile(), "rw")) {
                raf.setLength(bytes);
            }
            String out = run("losetup", "--find", "--show", img.toString());
            assertThat(out).startsWith("/dev/loop");
            return new Loop(Path.of(out.trim()));
        }

        @Override
        public void close() throws IOException, InterruptedException {
            run("losetup", "--detach", device.toString());
        }

        private static String run(String... cmd) throws IOException, InterruptedException {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", cmd) + " failed: " + out);
            }
            return out;
        }
    }
}
