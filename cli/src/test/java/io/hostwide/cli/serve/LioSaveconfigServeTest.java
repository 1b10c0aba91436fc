package io.hostwide.cli.serve;

import io.hostwide.cli.CliRun;
import io.hostwide.management.Admin;
import io.hostwide.management.TargetAssembly;
import io.hostwide.management.config.ServeConfigLoader;
import io.hostwide.management.lio.ConfigFiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * An LIO saveconfig.json served as {@code hostwide serve --config} serves it (ConfigFiles, then the assembly with the
 * file's places), seen by libiscsi's {@code iscsi-ls} (libiscsi-bin): demo mode with the TPG's CHAP credentials, and
 * node ACLs whose mapped LUNs an initiator sees under their mapped numbers.
 */
class LioSaveconfigServeTest {

    @TempDir
    Path dir;

    private Path fixture(String name) throws IOException {
        // The files management's import tests use (surefire runs in the module's directory).
        try (InputStream in = Files.newInputStream(Path.of("../management/src/test/resources/lio", name))) {
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("@DIR@", dir.toString());
            Path p = dir.resolve(name);
            Files.writeString(p, text);
            return p;
        }
    }

    private static TargetAssembly serve(Path file) throws IOException {
        ConfigFiles.Loaded loaded = ConfigFiles.load(file);
        // As serve --listen 127.0.0.1:0: the file's portals give way to a free port.
        TargetAssembly a = ServeConfigLoader.located(loaded.places(), () -> TargetAssembly.build(loaded.config(),
                List.of(new InetSocketAddress("127.0.0.1", 0)), null));
        a.start();
        return a;
    }

    private static String iscsiLs(String... args) throws Exception {
        return IscsiLs.run(args);
    }

    @Test
    void demoModeWithChapServesItsLunToAnInitiatorWithTheCredentials() throws Exception {
        try (TargetAssembly a = serve(fixture("demo-mode.json"))) {
            int port = a.boundAddresses().get(0).getPort();
            String out = iscsiLs("-s", "iscsi://csi-user%csi-initiator-secret@127.0.0.1:" + port + "/");
            assertThat(out).contains("Target:iqn.2003-01.org.linux-iscsi.csi:pvc-3f1e Portal:127.0.0.1:" + port + ",1")
                    .contains("Lun:0    Type:DIRECT_ACCESS (Size:1023M)");
            String refused = iscsiLs("-s", "iscsi://csi-user%wrong-secret-12@127.0.0.1:" + port + "/");
            assertThat(refused).doesNotContain("Lun:0");
        }
    }

    /**
     * The command itself, in its own JVM: {@code hostwide serve --config saveconfig.json} starts, prints the import's
     * warnings with its others, serves the LUNs to iscsi-ls, and stops on SIGTERM.
     */
    @Test
    void serveStartsFromSaveconfigJson() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/iscsi-ls")), "libiscsi-bin's iscsi-ls is not installed");
        Path file = fixture("demo-mode.json");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process serve = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                "io.hostwide.cli.Main", "serve", "--config", file.toString(), "--listen", "127.0.0.1:0",
                "--admin-socket", dir.resolve("admin.sock").toString()).redirectErrorStream(true).start();
        try {
            BlockingQueue<String> lines = new LinkedBlockingQueue<>();
            Thread reader = new Thread(() -> {
                try (var in = serve.inputReader(StandardCharsets.UTF_8)) {
                    in.lines().forEach(lines::add);
                } catch (IOException e) {
                    lines.add("read failed: " + e);
                }
            });
            reader.setDaemon(true);
            reader.start();
            List<String> seen = new ArrayList<>();
            Matcher listening = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (listening == null && System.nanoTime() < deadline) {
                String line = lines.poll(1, TimeUnit.SECONDS);
                if (line != null) {
                    seen.add(line);
                    Matcher m = Pattern.compile("listening on 127\\.0\\.0\\.1:(\\d+);").matcher(line);
                    listening = m.find() ? m : null;
                }
            }
            assertThat(listening).as(String.join("\n", seen)).isNotNull();
            assertThat(seen).anyMatch(l -> l.startsWith("hostwide serve: warning: " + file
                    + " line 37: storage_objects[0].wwn=9f8e7d6c-pvc: hostwide has no configurable unit serial"));
            String out = iscsiLs("-s", "iscsi://csi-user%csi-initiator-secret@127.0.0.1:" + listening.group(1) + "/");
            assertThat(out).contains("Lun:0    Type:DIRECT_ACCESS (Size:1023M)");
        } finally {
            serve.destroy(); // SIGTERM: serve's graceful stop
            if (!serve.waitFor(30, TimeUnit.SECONDS)) {
                serve.destroyForcibly();
            }
        }
        assertThat(serve.exitValue()).isZero();
    }

    @Test
    void nodeAclsShowEachInitiatorItsMappedLuns() throws Exception {
        try (TargetAssembly a = serve(fixture("ramdisk.json"))) {
            String url = "iscsi://127.0.0.1:" + a.boundAddresses().get(0).getPort() + "/";
            String lab1 = iscsiLs("-s", "-i", "iqn.1994-05.com.redhat:lab1", url);
            assertThat(lab1).contains("Lun:0    Type:DIRECT_ACCESS (Size:255M)") // scratch, 256 MiB ramdisk
                    .contains("Lun:1    Type:DIRECT_ACCESS (Size:1023G)");       // blackhole (nullio), TPG LUN 7
            String lab2 = iscsiLs("-s", "-i", "iqn.1994-05.com.redhat:lab2", url);
            assertThat(lab2).contains("Lun:0    Type:DIRECT_ACCESS (Size:1023G)").doesNotContain("Lun:1");
            String other = iscsiLs("-s", "-i", "iqn.1994-05.com.redhat:stranger", url);
            assertThat(other).doesNotContain("Lun:");
        }
    }

    /** admin reload (and SIGHUP) re-reads the LIO file as serve read it, and applies an ACL change live. */
    @Test
    void reloadReadsTheLioFileAgain() throws Exception {
        Path file = fixture("ramdisk.json");
        try (TargetAssembly a = serve(file)) {
            Admin admin = new Admin(a, file, null);
            assertThat(admin.handle("reload")).containsEntry("changes", List.of());
            // lab2 now also sees TPG LUN 0 (scratch) as its LUN 1, read-only.
            String lab2 = "\"node_wwn\": \"iqn.1994-05.com.redhat:lab2\"";
            Files.writeString(file, Files.readString(file).replace("}\n              ],\n              " + lab2,
                    "},\n                {\"index\": 1, \"tpg_lun\": 0, \"write_protect\": true}\n              ],\n"
                            + "              " + lab2));
            Map<String, Object> reply = admin.handle("reload");
            assertThat(reply.get("changes").toString()).contains("iqn.1994-05.com.redhat:lab2");
            assertThat(reply.get("warnings").toString()).contains("storage_objects[0].wwn=aa11bb22-scratch");
            String url = "iscsi://127.0.0.1:" + a.boundAddresses().get(0).getPort() + "/";
            assertThat(iscsiLs("-s", "-i", "iqn.1994-05.com.redhat:lab2", url))
                    .contains("Lun:1    Type:DIRECT_ACCESS (Size:255M)");
        }
    }

    @Test
    void configConvertWritesSaveconfigJsonThatServeReadsBack() throws Exception {
        Path lio = fixture("ramdisk.json");
        Path hostwide = dir.resolve("serve.json");
        CliRun toHostwide = CliRun.run("config", "convert", "--from", lio.toString(), "--to-format", "hostwide",
                "--out", hostwide.toString());
        assertThat(toHostwide.status()).as(toHostwide.err()).isZero();
        assertThat(toHostwide.err()).contains("hostwide config convert: warning: " + lio
                + " line 15: storage_objects[0].wwn=aa11bb22-scratch");
        CliRun back = CliRun.run("config", "convert", "--from", hostwide.toString(), "--to-format", "lio");
        assertThat(back.status()).as(back.err()).isZero();
        assertThat(back.out()).startsWith("{\n  \"fabric_modules\": [],\n  \"storage_objects\": [\n")
                .contains("\"storage_object\": \"/backstores/ramdisk/blackhole\"")
                .contains("\"node_wwn\": \"iqn.1994-05.com.redhat:lab2\"");
        assertThat(Files.getPosixFilePermissions(hostwide)).hasSize(2); // rw------- : it may hold CHAP secrets
        CliRun bad = CliRun.run("config", "convert", "--from", dir.resolve("none.json").toString(), "--to-format",
                "lio");
        assertThat(bad.status()).isEqualTo(2);
        assertThat(bad.err()).contains("none.json does not exist").doesNotContain("\tat ");
    }
}
