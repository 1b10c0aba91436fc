package io.hostwide.tcm.backstore;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Test equipment: a loop device over a sparse file, attached by {@code losetup --find --show} and detached by its
 * own name on {@link #close()}; never touches a device it did not attach. Needs root and util-linux's losetup
 * (.ci/run installs it); {@link #attach} skips the test, saying why, where they are missing.
 */
final class LoopDevice implements AutoCloseable {
    final Path file;
    final Path device;

    private LoopDevice(Path file, Path device) {
        this.file = file;
        this.device = device;
    }

    /** Attaches a loop device over a new sparse file of {@code bytes}; {@code sectorSize} 0 keeps losetup's 512. */
    static LoopDevice attach(Path dir, long bytes, int sectorSize) throws IOException, InterruptedException {
        String why = unavailable();
        assumeTrue(why == null, () -> "loop device tests skipped: " + why);
        Path file = Files.createTempFile(dir, "loop", ".img");
        try (var raf = new java.io.RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(bytes);
        }
        List<String> cmd = new ArrayList<>(List.of("losetup", "--find", "--show"));
        if (sectorSize != 0) {
            cmd.addAll(List.of("--sector-size", Integer.toString(sectorSize)));
        }
        cmd.add(file.toString());
        Result r = run(cmd);
        if (r.exit != 0 || !r.out.startsWith("/dev/")) {
            throw new IOException("losetup failed (" + r.exit + "): " + r.out);
        }
        return new LoopDevice(file, Path.of(r.out.trim()));
    }

    /** Null when loop devices can be attached here, else why not. */
    static String unavailable() throws IOException, InterruptedException {
        if (!System.getProperty("os.name", "").startsWith("Linux")) {
            return "not Linux";
        }
        Result id;
        try {
            id = run(List.of("id", "-u"));
            if (!id.out.trim().equals("0")) {
                return "attaching loop devices needs root (uid " + id.out.trim() + ")";
            }
            if (run(List.of("losetup", "--version")).exit != 0) {
                return "losetup does not run";
            }
        } catch (IOException e) {
            return "losetup not installed (util-linux / mount package): " + e.getMessage();
        }
        if (!Files.exists(Path.of("/dev/loop-control"))) {
            return "no /dev/loop-control (loop module not loaded, or a container without it)";
        }
        return null;
    }

    String sysfsName() { return device.getFileName().toString(); }

    @Override
    public void close() throws IOException, InterruptedException {
        Result r = run(List.of("losetup", "--detach", device.toString()));
        if (r.exit != 0) {
            throw new IOException("losetup --detach " + device + " failed: " + r.out);
        }
    }

    record Result(int exit, String out) {}

    static Result run(List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", cmd) + " did not finish in 60 s");
        }
        return new Result(p.exitValue(), out);
    }
}
