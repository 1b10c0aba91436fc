package io.hostwide.management.config;

import io.hostwide.management.TargetAssembly;
import io.hostwide.tcm.lu.Device;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code "type": "block"} in serve's configuration: the path must name a block device, and the messages name the
 * file, line and key; on a loop device (attached and detached here) the device's own geometry reaches the LUN,
 * and {@code size}/{@code block_size} that do not match the device are refused at that key.
 */
class BlockBackstoreConfigTest {

    private static String config(String backstore) {
        return """
                {
                  "backstores": {
                    "d": %s
                  },
                  "targets": [ { "name": "iqn.2026-12.io.hostwide:t", "luns": [ { "lun": 0, "backstore": "d" } ] } ]
                }
                """.formatted(backstore);
    }

    @Test
    void aMissingRegularOrCharacterPathIsRefusedByFileLineAndKey(@TempDir Path dir) throws IOException {
        assertThatThrownBy(() -> ServeConfigLoader.parse("c.json", config("{ \"type\": \"block\" }")))
                .hasMessage("c.json line 3: backstores.d.path is required for a block backstore (e.g. \"/dev/sdb\")");
        Path missing = dir.resolve("nope");
        assertThatThrownBy(() -> ServeConfigLoader.parse("c.json",
                config("{ \"type\": \"block\", \"path\": \"" + missing + "\" }")))
                .hasMessage("c.json line 3: backstores.d.path " + missing + " does not exist");
        Path file = Files.writeString(dir.resolve("disk.img"), "x");
        assertThatThrownBy(() -> ServeConfigLoader.parse("c.json",
                config("{ \"type\": \"block\", \"path\": \"" + file + "\" }")))
                .hasMessage("c.json line 3: backstores.d.path " + file
                        + " is a regular file (use \"type\": \"file\" for image files)");
        assertThatThrownBy(() -> ServeConfigLoader.parse("c.json",
                config("{ \"type\": \"block\", \"path\": \"/dev/null\" }")))
                .hasMessage("c.json line 3: backstores.d.path /dev/null is not a block device");
    }

    @Test
    void theDevicesGeometryReachesTheLun(@TempDir Path dir) throws Exception {
        try (Loop loop = Loop.attach(dir, 32L << 20, 4096)) {
            ServeConfig cfg = ServeConfigLoader.parse("c", config("{ \"type\": \"block\", \"path\": \"" + loop.device
                    + "\", \"size\": \"32m\" }"));
            TargetAssembly a = TargetAssembly.build(cfg, List.of(new InetSocketAddress("127.0.0.1", 0)), null);
            try {
                Device d = a.core().device("d");
                assertThat(d.blockSize()).isEqualTo(4096);
                assertThat(d.blockCount()).isEqualTo((32L << 20) / 4096);
                assertThat(d.attributes().nonRotational()).isEqualTo(!"1".equals(loop.queue("rotational")));
                assertThat(d.thinProvisioned()).isEqualTo(Runtime.version().feature() >= 22);
                assertThat(d.backstore().describe()).contains("block " + loop.device);
            } finally {
                a.close();
            }
        }
    }

    @Test
    void aSizeOrBlockSizeThatDoesNotMatchTheDeviceIsRefusedAtItsKey(@TempDir Path dir) throws Exception {
        try (Loop loop = Loop.attach(dir, 32L << 20, 0)) {
            Path file = Files.writeString(dir.resolve("serve.json"), config("{ \"type\": \"block\", \"path\": \""
                    + loop.device + "\",\n \"size\": \"64m\" }"));
            ServeConfig cfg = ServeConfigLoader.load(file);
            assertThatThrownBy(() -> ServeConfigLoader.located(file,
                    () -> TargetAssembly.build(cfg, List.of(new InetSocketAddress("127.0.0.1", 0)), null)))
                    .hasMessage(file + " line 4: backstores.d.size 64m does not match the device: " + loop.device
                            + " has 33554432 bytes (leave \"size\" out to take the device's)");
            ServeConfig bs = ServeConfigLoader.parse("c", config("{ \"type\": \"block\", \"path\": \"" + loop.device
                    + "\", \"block_size\": 4096 }"));
            assertThatThrownBy(() -> TargetAssembly.build(bs, List.of(new InetSocketAddress("127.0.0.1", 0)), null))
                    .hasMessage("backstores.d.block_size 4096 does not match the device's logical block size 512 "
                            + "(leave \"block_size\" out to take the device's)");
        }
    }

    /** A loop device over a sparse file, detached by its own name; the test is skipped only without losetup/root. */
    record Loop(Path device) implements AutoCloseable {
        static Loop attach(Path dir, long bytes, int sectorSize) throws IOException, InterruptedException {
            assumeTrue(Files.exists(Path.of("/dev/loop-control")) && (Files.isExecutable(Path.of("/usr/sbin/losetup"))
                    || Files.isExecutable(Path.of("/sbin/losetup"))) && run("id", "-u").trim().equals("0"),
                    "loop device tests skipped: needs root, losetup and /dev/loop-control");
            Path img = dir.resolve("loop.img");
            try (RandomAccessFile raf = new RandomAccessFile(img.toFile(), "rw")) {
                raf.setLength(bytes);
            }
            String out = sectorSize == 0 ? run("losetup", "--find", "--show", img.toString())
                    : run("losetup", "--find", "--show", "--sector-size", Integer.toString(sectorSize), img.toString());
            assertThat(out).startsWith("/dev/loop");
            return new Loop(Path.of(out.trim()));
        }

        String queue(String attr) throws IOException {
            return Files.readString(Path.of("/sys/class/block", device.getFileName().toString(), "queue", attr)).trim();
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
