package io.hostwide.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.assertj.core.api.Assertions.assertThat;

class MainTest {

    @Test
    void unknownOptionIsOneLineAndStatus2() {
        CommandLine cl = Main.commandLine();
        StringWriter err = new StringWriter();
        cl.setErr(new PrintWriter(err));
        int status = cl.execute("--no-such-option");
        assertThat(status).isEqualTo(2);
        assertThat(err.toString()).startsWith("hostwide: Unknown option: '--no-such-option'");
        assertThat(err.toString()).doesNotContain("Exception").doesNotContain("\tat ");
    }

    @Test
    void versionNamesTheProduct() {
        CommandLine cl = Main.commandLine();
        StringWriter out = new StringWriter();
        cl.setOut(new PrintWriter(out));
        assertThat(cl.execute("--version")).isZero();
        assertThat(out.toString()).startsWith("hostwide ");
    }
}
