package io.hostwide.cli.serve;

import io.hostwide.management.MemoryBudget;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code serve --memory}: the budget it asks of the JVM, checked against what this JVM enforces. */
class ServeMemoryOptionTest {
    private static final long MIB = 1L << 20;

    @Test
    void serveRefusesAnExplicitBudgetThisJvmDoesNotEnforce() {
        ServeCommand c = new ServeCommand();
        c.memory = "1g";
        assertThatThrownBy(() -> c.memoryBudget(new MemoryBudget.Limits(4L << 30, 0), new ArrayList<>()))
                .hasMessageContaining("-Xmx768m -XX:MaxDirectMemorySize=256m");
        assertThat(c.memoryBudget(new MemoryBudget.Limits(768 * MIB, 256 * MIB), new ArrayList<>()))
                .isEqualTo(MemoryBudget.of(1L << 30));
        c.memory = "1x";
        assertThatThrownBy(() -> c.memoryBudget(new MemoryBudget.Limits(768 * MIB, 256 * MIB), new ArrayList<>()))
                .hasMessageContaining("--memory: unknown unit 'x'");
    }

    @Test
    void withoutBudgetTheJvmsOwnLimitsApplyAndTheLaunchersDefaultIsChecked() {
        ServeCommand c = new ServeCommand();
        List<String> warnings = new ArrayList<>();
        String was = System.clearProperty(MemoryBudget.PROPERTY);
        try {
            assertThat(c.memoryBudget(new MemoryBudget.Limits(4L << 30, 0), warnings)).isNull();
            assertThat(warnings).isEmpty();
            assertThat(MemoryBudget.line(null, new MemoryBudget.Limits(4L << 30, 0)))
                    .isEqualTo("memory: heap at most 4.00 GiB, direct memory at most as much (the JVM's default) "
                            + "(no --memory: this JVM's own limits; the hostwide launcher sets them from --memory)");
            System.setProperty(MemoryBudget.PROPERTY, "2048m"); // the launcher's default
            assertThat(c.memoryBudget(new MemoryBudget.Limits(1536 * MIB, 512 * MIB), warnings))
                    .isEqualTo(new MemoryBudget(2048, 1536, 512));
            assertThat(warnings).isEmpty();
            assertThat(c.memoryBudget(new MemoryBudget.Limits(3L << 30, 512 * MIB), warnings)).isNotNull();
            assertThat(warnings).as("HOSTWIDE_JAVA_OPTS may differ on purpose: a warning, not a refusal")
                    .singleElement().asString().contains("-Xmx1536m");
        } finally {
            if (was == null) {
                System.clearProperty(MemoryBudget.PROPERTY);
            } else {
                System.setProperty(MemoryBudget.PROPERTY, was);
            }
        }
    }
}
