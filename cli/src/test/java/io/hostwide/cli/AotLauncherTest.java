package io.hostwide.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher's AOT cache ({@code bin/aot.sh}, sourced by {@code ./hostwide}): used only on JDK 25+, only the cache
 * of this very jar, JDK and options; a missing one is created by a detached training run; the function never prints
 * anything but options. A fake JDK stands in for the real one: its {@code java} writes the cache file it is asked for.
 */
class AotLauncherTest {
    /** The repository root: tests run in the cli module's directory. */
    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

    @TempDir
    Path tmp;

    private Path jdk(String version, int exitStatus) throws IOException {
        Path home = tmp.resolve("jdk-" + version);
        Files.createDirectories(home.resolve("bin"));
        Files.createDirectories(home.resolve("lib"));
        Files.writeString(home.resolve("release"), "IMPLEMENTOR=\"test\"\nJAVA_VERSION=\"" + version + "\"\n");
        Files.writeString(home.resolve("lib/modules"), "modules");
        Path java = home.resolve("bin/java");
        Files.writeString(java, """
                #!/usr/bin/env bash
                echo "$@" >> "$(dirname "$0")/calls"
                for a in "$@"; do case "$a" in -XX:AOTCacheOutput=*) echo cache > "${a#*=}" ;; esac; done
                exit %d
                """.formatted(exitStatus));
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        return home;
    }

    /** What {@code hostwide_aot_options JAR OPTS} prints (stdout and stderr together). */
    private String options(Path home, Path jar, Map<String, String> env) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("bash", "-c", "source \"$1\"; hostwide_aot_options \"$2\" \"$3\"", "bash",
                ROOT.resolve("bin/aot.sh").toString(), jar.toString(), "-XX:+UseParallelGC -Xss1m")
                .redirectErrorStream(true);
        pb.environment().remove("HOSTWIDE_AOT");
        pb.environment().put("JAVA_HOME", home.toString());
        pb.environment().put("JAVA", home.resolve("bin/java").toString());
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertThat(p.waitFor()).as(out).isZero();
        return out;
    }

    private Path jar() throws IOException {
        Path dir = Files.createDirectories(tmp.resolve("target"));
        Path jar = dir.resolve("hostwide.jar");
        if (!Files.exists(jar)) {
            Files.writeString(jar, "jar");
        }
        return jar;
    }

    /** Waits (a bound, not a timing assertion) until the detached training run has finished: its lock is gone. */
    private static List<Path> awaitTraining(Path aotDir) throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (Files.exists(aotDir.resolve("training.lock")) && System.nanoTime() < until) {
            Thread.sleep(20);
        }
        assertThat(aotDir.resolve("training.lock")).doesNotExist();
        try (var s = Files.list(aotDir)) {
            return s.sorted().toList();
        }
    }

    @Test
    void theLauncherUsesIt() throws IOException {
        assertThat(Files.readString(ROOT.resolve("hostwide"))).contains("source \"$root/bin/aot.sh\"")
                .contains("$(hostwide_aot_options \"$jar\" \"$opts\")");
    }

    @Test
    void olderJdksAndTheSwitchGetNothing() throws Exception {
        Path jar = jar();
        assertThat(options(jdk("21.0.5", 0), jar, Map.of())).isEmpty();
        assertThat(options(jdk("25.0.1", 0), jar, Map.of("HOSTWIDE_AOT", "0"))).isEmpty();
        assertThat(jar.getParent().resolve("aot")).doesNotExist();
    }

    @Test
    @Timeout(120)
    void aMissingCacheIsTrainedOutOfBandThenUsedAndANewJarGetsItsOwn() throws Exception {
        Path home = jdk("25.0.1", 0);
        Path jar = jar();
        Path aot = jar.getParent().resolve("aot");
        assertThat(options(home, jar, Map.of())).as("no cache yet: none used").isEmpty();
        List<Path> files = awaitTraining(aot);
        assertThat(files).hasSize(1);
        Path cache = files.get(0);
        assertThat(cache.getFileName().toString()).matches("hostwide-[0-9]+\\.aot");
        assertThat(Files.getPosixFilePermissions(aot)).isEqualTo(PosixFilePermissions.fromString("rwx------"));
        assertThat(Files.readString(home.resolve("bin/calls"))).contains("-XX:AOTCacheOutput=")
                .contains("-Xlog:aot=off").contains("bench --device loop:");
        assertThat(options(home, jar, Map.of()))
                .isEqualTo("-XX:AOTCache=" + cache + " -Xlog:aot=off -Xlog:cds=off");

        // A rebuilt jar: the old cache is not used; the new one replaces it.
        Files.writeString(jar, "another build");
        Files.setLastModifiedTime(jar, FileTime.fromMillis(System.currentTimeMillis() + 5_000));
        assertThat(options(home, jar, Map.of())).isEmpty();
        List<Path> after = awaitTraining(aot);
        assertThat(after).hasSize(1).doesNotContain(cache);
        assertThat(options(home, jar, Map.of())).contains("-XX:AOTCache=" + after.get(0));
    }

    @Test
    @Timeout(120)
    void aFailedTrainingLeavesNoCacheAndNoLock() throws Exception {
        Path home = jdk("25.0.1", 1);
        Path jar = jar();
        assertThat(options(home, jar, Map.of())).isEmpty();
        assertThat(awaitTraining(jar.getParent().resolve("aot"))).isEmpty();
        assertThat(options(home, jar, Map.of())).isEmpty();
    }
}
