package io.hostwide.cli.serve;

import io.hostwide.cli.CliRun;
import io.hostwide.management.Backstores;
import io.hostwide.management.TargetAssembly;
import io.hostwide.management.config.ConfigKeyException;
import io.hostwide.management.config.ServeConfig;
import io.hostwide.management.config.ServeConfigLoader;
import io.hostwide.tcm.backstore.RamBackstore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code limits.ram_budget} and thick RAM backstores in serve's configuration (issue 12): the budget is checked
 * like every key, a thick RAM LUN the budget cannot hold stops serve with the file, line and key, and status shows
 * what is reserved.
 */
class RamBudgetConfigTest {
    private static final String TARGET = """
              "targets": [ { "name": "iqn.2026-12.io.hostwide:t", "luns": [ { "lun": 0, "backstore": "big" } ] } ]
            """;

    @Test
    void aThickRamBackstoreTheBudgetCannotHoldStopsServeNamingTheKey(@TempDir Path dir) throws IOException {
        Path cfg = dir.resolve("serve.json");
        Files.writeString(cfg, """
                {
                  "limits": { "ram_budget": "64m" },
                  "backstores": {
                    "big": { "type": "ram", "size": "128m",
                             "thin": false }
                  },
                %s}
                """.formatted(TARGET));
        CliRun r = CliRun.run("serve", "--config", cfg.toString(), "--listen", "127.0.0.1:0");
        assertThat(r.status()).isEqualTo(2);
        assertThat(r.err()).startsWith("hostwide serve: " + cfg + " line 5: backstores.big.thin: false, but a thick "
                        + "RAM backstore of 134217728 bytes does not fit in the RAM budget: 67108864 of 67108864 bytes "
                        + "left (make it thin, raise limits.ram_budget or --memory, or shrink it)")
                .doesNotContain("Exception").doesNotContain("\tat ");
    }

    @Test
    void theBudgetIsCheckedLikeEveryKey() {
        String base = """
                { "limits": { "ram_budget": "%s" },
                  "backstores": { "big": { "type": "ram", "size": "1m" } },
                %s}
                """;
        assertThatThrownBy(() -> ServeConfigLoader.parse("c", base.formatted("lots", TARGET)))
                .hasMessageStartingWith("c line 1: limits.ram_budget: 'lots' is not a size");
        assertThatThrownBy(() -> ServeConfigLoader.parse("c", base.formatted("1k", TARGET)))
                .hasMessage("c line 1: limits.ram_budget 1k is less than one RAM page (64k)");
        assertThatThrownBy(() -> ServeConfigLoader.parse("c", base.formatted("1g", TARGET).replace("1m", "2048t")))
                .hasMessage("c line 2: backstores.big.size 2048t is more than a RAM backstore can be (1 PiB)");
        ServeConfig ok = ServeConfigLoader.parse("c", base.formatted("512m", TARGET));
        assertThat(ok.limits().ramBudget()).isEqualTo("512m");
    }

    @Test
    void aBudgetTheOldGenerationCannotHoldIsRefusedAndTheDefaultLeavesRoom() {
        // measured: 672 MiB of pages allowed in a 768 MiB heap (ParallelGC, a 512 MiB old generation) ran it out
        ServeConfig.Limits limits = new ServeConfig.Limits(null, null, "672m");
        assertThatThrownBy(() -> Backstores.ramBudget(limits, 768L << 20, 512L << 20))
                .isInstanceOf(ConfigKeyException.class)
                .hasMessage("limits.ram_budget 672m is more than the heap can hold besides the rest of serve (at most "
                        + "416 MiB: the 512 MiB old generation of a 768 MiB heap less 96 MiB): raise --memory or "
                        + "lower limits.ram_budget");
        ServeConfig.Limits fits = new ServeConfig.Limits(null, null, "416m");
        assertThat(Backstores.ramBudget(fits, 768L << 20, 512L << 20).limit()).isEqualTo(416L << 20);
        assertThat(Backstores.ramBudget(null, 768L << 20, 512L << 20).limit()).isEqualTo(384L << 20);
        assertThat(Backstores.ramBudget(null, 384L << 20, 256L << 20).limit()).isEqualTo(160L << 20);
        assertThat(Backstores.ramBudget(null, 768L << 20, 768L << 20).limit()).isEqualTo(384L << 20);
    }

    @Test
    @SuppressWarnings("unchecked")
    void a64TibThinAndAThickLunStartAndStatusShowsTheBudget() {
        ServeConfig cfg = ServeConfigLoader.parse("c", """
                { "limits": { "ram_budget": "256m" },
                  "backstores": { "huge": { "type": "ram", "size": "64t" },
                                  "big": { "type": "ram", "size": "100m", "thin": false } },
                  "targets": [ { "name": "iqn.2026-12.io.hostwide:t",
                                 "luns": [ { "lun": 0, "backstore": "huge" }, { "lun": 1, "backstore": "big" } ] } ] }
                """);
        try (TargetAssembly a = TargetAssembly.build(cfg, List.of(new InetSocketAddress("127.0.0.1", 0)), null)) {
            Map<String, Object> ram = (Map<String, Object>) a.status().get("ram_budget");
            assertThat(ram).containsEntry("limit_bytes", 256L << 20).containsEntry("used_bytes", 100L << 20)
                    .containsEntry("free_bytes", 156L << 20);
            RamBackstore huge = (RamBackstore) a.core().device("huge").backstore();
            assertThat(huge.rootSlots()).isEqualTo(1024);
            assertThat(huge.allocatedNodes()).isZero();
            assertThat(a.summary()).anyMatch(l -> l.startsWith("RAM budget: 256 MiB for the RAM backstores' pages, "
                    + "100 MiB reserved at start (limits.ram_budget)"));
        }
    }
}
