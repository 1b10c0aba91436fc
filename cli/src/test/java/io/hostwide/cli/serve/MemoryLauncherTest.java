package io.hostwide.cli.serve;

import io.hostwide.management.MemoryBudget;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 12 item 3: the launcher reads serve's --memory before the JVM starts ({@code bin/memory.sh}, sourced by
 * {@code ./hostwide}) and must split it exactly as {@link MemoryBudget} does, which serve then checks.
 */
class MemoryLauncherTest {
    /** The repository root: tests run in the cli module's directory. */
    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
    private static final long MIB = 1L << 20;

    /** The options bin/memory.sh prints for {@code args}, with the machine's memory given as {@code physMib}. */
    private static String options(Map<String, String> env, long physMib, String... args)
            throws IOException, InterruptedException {
        StringBuilder script = new StringBuilder("source \"$1\"; shift; hostwide_physical_mib() { echo ")
                .append(physMib).append("; }; hostwide_memory_options \"$@\"");
        List<String> cmd = new ArrayList<>(List.of("bash", "-c", script.toString(), "bash",
                ROOT.resolve("bin/memory.sh").toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().remove("HOSTWIDE_JAVA_OPTS");
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertThat(p.waitFor()).as(out).isZero();
        return out;
    }

    private static String options(String... args) throws IOException, InterruptedException {
        return options(Map.of(), 8192, args);
    }

    @Test
    void theLauncherIsWhatSourcesTheScript() throws IOException {
        assertThat(Files.readString(ROOT.resolve("hostwide"))).contains("source \"$root/bin/memory.sh\"")
                .contains("$(hostwide_memory_options \"$@\") -jar");
    }

    @Test
    void explicitMemorySplitsAsServeExpects() throws Exception {
        for (String size : List.of("256m", "300m", "1g", "1536M", "2GiB", "3g", "1000000k", "64g")) {
            long bytes = io.hostwide.management.util.Sizes.parseBytes("--memory", size);
            String expected = String.join(" ", MemoryBudget.of(bytes).jvmOptions());
            assertThat(options("serve", "--memory", size)).as(size).isEqualTo(expected);
            assertThat(options("serve", "--listen", "127.0.0.1:3260", "--memory=" + size)).as(size)
                    .isEqualTo(expected);
        }
    }

    @Test
    void theDefaultIsHalfTheMachineAtMost2GiBAtLeast256MiB() throws Exception {
        assertThat(options(Map.of(), 24 * 1024, "serve")).isEqualTo(opts(3072));
        assertThat(options(Map.of(), 2048, "serve")).isEqualTo(opts(1024));
        assertThat(options(Map.of(), 1000, "serve")).isEqualTo(opts(500));
        assertThat(options(Map.of(), 300, "serve")).isEqualTo(opts(256));
    }

    @Test
    void onlyServeGetsOptionsAndJavaOptionsThatSetLimitsAreRespected() throws Exception {
        assertThat(options("bench", "--memory", "1g")).isEmpty();
        assertThat(options("admin", "status")).isEmpty();
        assertThat(options("--help")).isEmpty();
        assertThat(options(Map.of("HOSTWIDE_JAVA_OPTS", "-Xmx3g"), 8192, "serve")).isEmpty();
        assertThat(options(Map.of("HOSTWIDE_JAVA_OPTS", "-Xmx3g"), 8192, "serve", "--memory", "1g"))
                .as("an explicit --memory wins").isEqualTo(opts(1024));
    }

    @Test
    void whatTheScriptCannotReadIsLeftForServeToRefuse() throws Exception {
        assertThat(options("serve", "--memory", "1x")).isEmpty();
        assertThat(options("serve", "--memory", "100m")).isEmpty(); // below the minimum: serve names it
        assertThat(options("serve", "--memory", "-1")).isEmpty();
    }

    private static String opts(long totalMib) {
        return String.join(" ", MemoryBudget.of(totalMib * MIB).jvmOptions());
    }
}
