package io.hostwide.cli.lab;

import io.hostwide.cli.CliRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code lab NAME --plot}: one bar panel per measured column of our table; the cell's knobs name the bars. */
class LabPlotTest {

    private static LabReport report() {
        LabReport r = new LabReport("demo", "two knobs, three metrics",
                LabReport.table("scheduler", "queue_depth", "KIOPS", "CPU us/IO", "merges/IO"),
                "seed", LabReport.table("case", "IOPS").add("theirs", "3.1M"));
        r.ours.add("none", 32, 120.0, 2.5, 0.0).add("mq-deadline", 32, 80.0, 3.0, Double.NaN)
                .add("none", 255, 150.0, 2.0, 0.1);
        return r;
    }

    @Test
    void onePanelPerMeasuredColumn(@TempDir Path dir) throws Exception {
        Path png = dir.resolve("lab.png");
        LabPlot.write(png, report());
        BufferedImage image = ImageIO.read(png.toFile());
        assertThat(image.getWidth()).isEqualTo(LabPlot.WIDTH);
        assertThat(image.getHeight()).as("KIOPS, CPU us/IO, merges/IO; the two knob columns are labels")
                .isEqualTo(3 * LabPlot.PANEL_HEIGHT);
        Path svg = dir.resolve("lab.svg");
        LabPlot.write(svg, report());
        assertThat(Files.readString(svg)).contains("height=\"" + 3 * LabPlot.PANEL_HEIGHT + "px\"");
    }

    @Test
    void aTableWithNothingMeasuredIsRefusedWithAReason(@TempDir Path dir) {
        LabReport empty = new LabReport("demo", "", LabReport.table("a", "KIOPS"), "seed", LabReport.table("x"));
        assertThatThrownBy(() -> LabPlot.write(dir.resolve("x.svg"), empty))
                .hasMessage("--plot: no cell was measured: nothing to plot");
        LabReport keysOnly = new LabReport("demo", "", LabReport.table("a", "b"), "seed", LabReport.table("x"));
        keysOnly.ours.add("x", 1);
        assertThatThrownBy(() -> LabPlot.write(dir.resolve("x.svg"), keysOnly))
                .hasMessage("--plot: experiment demo has no measured column");
    }

    @Test
    void theCommandChecksTheFileBeforeItMeasures(@TempDir Path dir) {
        CliRun r = CliRun.run("lab", "restarts", "--quick", "--plot", dir.resolve("x.jpg").toString());
        assertThat(r.status()).isEqualTo(2);
        assertThat(r.err()).contains("--plot: ").contains("*.svg (vector) or *.png");
        assertThat(r.out()).isEmpty();
    }
}
