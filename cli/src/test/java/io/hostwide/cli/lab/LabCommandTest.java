package io.hostwide.cli.lab;

import com.fasterxml.jackson.databind.JsonNode;
import io.hostwide.cli.CliRun;
import io.hostwide.management.util.Json;
import org.junit.jupiter.api.Test;

import static io.hostwide.cli.CliRun.run;
import static org.assertj.core.api.Assertions.assertThat;

class LabCommandTest {

    @Test
    void listNamesEveryExperiment() {
        CliRun r = run("lab", "--list");
        assertThat(r.status()).isZero();
        assertThat(r.out().lines()).hasSize(Experiments.all().size());
        assertThat(r.out()).contains("fair-share", "hdd-merge", "restarts", "shared-tags");
    }

    @Test
    void jsonReportKeepsOursAndTheSeedsApart() throws Exception {
        CliRun r = run("lab", "hdd-merge", "--json", "--runtime", "300ms", "--ndelay", "200us", "--repeat", "2");
        assertThat(r.status()).as(r.err()).isZero();
        JsonNode tree = Json.mapper().readTree(r.out());
        assertThat(tree.at("/experiment").asText()).isEqualTo("hdd-merge");
        assertThat(tree.at("/setup").asText()).contains("ndelay=200000").contains("300 ms per cell");
        assertThat(tree.at("/ours")).hasSize(4);
        assertThat(tree.at("/ours/1/queue_depth").asInt()).isEqualTo(32);
        assertThat(tree.at("/ours/0/MB~1s").asDouble()).isPositive();
        assertThat(tree.at("/seed/0/fio read throughput").asText()).isEqualTo("825MB/s");
        assertThat(tree.at("/repeat").asInt()).isEqualTo(2);
        assertThat(tree.at("/noise_margin").asDouble()).isEqualTo(HddMergeExperiment.MARGIN);
        assertThat(tree.at("/shape_shown").asText()).isIn("yes", "no", "inconclusive");
        assertThat(tree.at("/clauses")).hasSize(HddMergeExperiment.expectation().size());
        assertThat(tree.at("/clauses/1/claim").asText()).isEqualTo(HddMergeExperiment.expectation().get(1));
        assertThat(tree.at("/clauses/1/shown").asText()).isIn("yes", "no", "inconclusive");
    }

    @Test
    void badOptionsAreOneLineWithStatus2() {
        String[][] cases = {
            {"no-such-experiment"}, {}, {"--list", "hdd-merge"}, {"hdd-merge", "--runtime", "5x"},
            {"hdd-merge", "--runtime", "1ms"}, {"hdd-merge", "--ndelay", "abc"}, {"hdd-merge", "--ndelay", "2s"},
            {"hdd-merge", "--frobnicate"}, {"hdd-merge", "--repeat", "0"}, {"hdd-merge", "--repeat", "x"},
        };
        for (String[] c : cases) {
            String[] args = new String[c.length + 1];
            args[0] = "lab";
            System.arraycopy(c, 0, args, 1, c.length);
            CliRun r = run(args);
            String what = String.join(" ", c);
            assertThat(r.status()).as(what).isEqualTo(2);
            assertThat(r.err().lines().findFirst().orElse("")).as(what).startsWith("hostwide lab: ");
            assertThat(r.err()).as(what).doesNotContain("\tat ").doesNotContain("Exception");
            assertThat(r.out()).as(what).isEmpty();
        }
    }
}
