package io.hostwide.cli.util;

import de.erichseifert.vectorgraphics2d.Document;
import de.erichseifert.vectorgraphics2d.VectorGraphics2D;
import de.erichseifert.vectorgraphics2d.svg.SVGProcessor;
import de.erichseifert.vectorgraphics2d.util.PageSize;
import org.knowm.xchart.internal.chartpart.Chart;

import javax.imageio.ImageIO;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * Writes charts (XChart) as one file, panels stacked top to bottom: SVG by default (text: a README shows it at any
 * size, git diffs it), PNG when the name ends in {@code .png} (smaller, for mail and chat). The file appears whole
 * or not at all: it is written beside the target and renamed into place, so Ctrl-C or a full disk never leaves
 * half a chart.
 */
public final class Charts {

    private Charts() {
    }

    /** Renders {@code panels} (all of one width) stacked, each at its own height, into {@code file} (.svg or .png). */
    public static void write(Path file, List<? extends Chart<?, ?>> panels) throws IOException {
        if (panels.isEmpty()) {
            throw new IllegalArgumentException("nothing to plot");
        }
        System.setProperty("java.awt.headless", "true"); // charts are drawn without a display
        int width = panels.get(0).getWidth();
        int height = panels.stream().mapToInt(Chart::getHeight).sum();
        boolean png = isPng(file);
        VectorGraphics2D vector = png ? null : new VectorGraphics2D();
        BufferedImage image = png ? new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB) : null;
        Graphics2D g = png ? image.createGraphics() : vector;
        int y = 0;
        for (Chart<?, ?> c : panels) {
            Graphics2D panel = (Graphics2D) g.create();
            panel.translate(0, y);
            c.paint(panel, width, c.getHeight());
            panel.dispose();
            y += c.getHeight();
        }
        g.dispose();
        Path dir = file.toAbsolutePath().getParent();
        // Named, not Files.createTempFile: that one is private (0600), and a chart is for others to read.
        Path tmp = dir.resolve("." + file.getFileName() + "." + ProcessHandle.current().pid() + ".tmp");
        try {
            try (OutputStream out = Files.newOutputStream(tmp, StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE)) {
                if (png) {
                    ImageIO.write(image, "png", out);
                } else {
                    Document doc = new SVGProcessor().getDocument(vector.getCommands(),
                            new PageSize(0, 0, width, height));
                    doc.writeTo(out);
                }
            }
            try {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    private static boolean isPng(Path file) {
        return file.getFileName().toString().toLowerCase(java.util.Locale.ROOT).endsWith(".png");
    }

    /** A --plot option's file, checked before a run so a long benchmark does not end in "cannot write". */
    public static Path checkTarget(String option, Path file) {
        String name = file.getFileName().toString().toLowerCase(java.util.Locale.ROOT);
        if (!name.endsWith(".svg") && !isPng(file)) {
            throw new IllegalArgumentException(option + ": " + file + ": name the file *.svg (vector) or *.png");
        }
        Path dir = file.toAbsolutePath().getParent();
        if (dir == null || !Files.isDirectory(dir)) {
            throw new IllegalArgumentException(option + ": " + file + ": no such directory");
        }
        if (!Files.isWritable(dir)) {
            throw new IllegalArgumentException(option + ": " + file + ": directory not writable");
        }
        if (Files.isDirectory(file)) {
            throw new IllegalArgumentException(option + ": " + file + ": is a directory");
        }
        return file;
    }
}
