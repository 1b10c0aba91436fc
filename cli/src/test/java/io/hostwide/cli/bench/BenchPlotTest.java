package io.hostwide.cli.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.hostwide.cli.CliRun;
import io.hostwide.management.util.Json;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;

import static io.hostwide.cli.CliRun.run;
import static org.assertj.core.api.Assertions.assertThat;

/** {@code bench --plot}: a chart of the run second by second, and the same seconds in the JSON. */
class BenchPlotTest {

    /**
     * A size-limited run (it may end in well under a second) still has its last, partial interval: the timeline's
     * I/Os add up to the run's, and the chart has its two panels.
     */
    @Test
    void timelineCoversEveryIoAndTheSvgHasTwoPanels(@TempDir Path dir) throws Exception {
        Path svg = dir.resolve("run.svg");
        CliRun r = run("bench", "--device", "null", "--rw", "randrw", "--size", "8m", "--iodepth", "4", "--json",
                "--plot", svg.toString());
        assertThat(r.status()).as(r.err()).isZero();
        JsonNode tree = Json.mapper().readTree(r.out());
        JsonNode timeline = tree.get("timeline");
        assertThat(timeline).isNotEmpty();
        long ios = 0;
        double prevAt = 0;
        for (JsonNode s : timeline) {
            double at = s.get("at_s").asDouble();
            assertThat(at).as("intervals in order").isGreaterThan(prevAt);
            ios += s.get("read_ios").asLong() + s.get("write_ios").asLong();
            prevAt = at;
            if (s.get("read_iops").asLong() > 0) {
                assertThat(s.at("/read_lat_ns/p99").asLong()).isGreaterThanOrEqualTo(s.at("/read_lat_ns/p50").asLong())
                        .isPositive();
            }
        }
        assertThat(ios).as("every I/O of the run is in some interval").isEqualTo(2048);
        String text = Files.readString(svg);
        assertThat(text).startsWith("<?xml").contains("<svg")
                .contains("height=\"" + 2 * BenchPlot.PANEL_HEIGHT + "px\"")
                .contains("width=\"" + BenchPlot.WIDTH + "px\"");
        try (var files = Files.list(dir)) {
            assertThat(files).as("no temporary file left").containsExactly(svg);
        }
    }

    @Test
    void pngByItsName(@TempDir Path dir) throws Exception {
        Path png = dir.resolve("run.png");
        CliRun r = run("bench", "--device", "null", "--size", "1m", "--plot", png.toString());
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out()).contains("chart written to " + png);
        BufferedImage image = ImageIO.read(png.toFile());
        assertThat(image.getWidth()).isEqualTo(BenchPlot.WIDTH);
        assertThat(image.getHeight()).isEqualTo(2 * BenchPlot.PANEL_HEIGHT);
    }

    /** Checked before the run: a long benchmark must not end in "cannot write". */
    @Test
    void badPlotFileIsAUsageErrorBeforeAnythingRuns(@TempDir Path dir) {
        CliRun txt = run("bench", "--device", "null", "--size", "1m", "--plot", dir.resolve("run.txt").toString());
        assertThat(txt.status()).isEqualTo(2);
        assertThat(txt.err()).contains("--plot: ").contains("name the file *.svg (vector) or *.png")
                .doesNotContain("IOPS");
        CliRun missing = run("bench", "--device", "null", "--size", "1m", "--plot",
                dir.resolve("no/such/run.svg").toString());
        assertThat(missing.status()).isEqualTo(2);
        assertThat(missing.err()).contains("no such directory");
    }
}
