package io.hostwide.cli.serve;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** libiscsi's {@code iscsi-ls} (libiscsi-bin) as the tests run it: a real initiator's view of a serve. */
final class IscsiLs {
    private IscsiLs() {
    }

    /** Its output (stdout and stderr); the test is skipped where libiscsi-bin is not installed. */
    static String run(String... args) throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/iscsi-ls")), "libiscsi-bin's iscsi-ls is not installed");
        List<String> cmd = new ArrayList<>(List.of("/usr/bin/iscsi-ls"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("iscsi-ls finished").isTrue();
        return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
}
