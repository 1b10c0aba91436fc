package io.hostwide.management.config;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes a {@link ServeConfig} back to its file so that a restart comes up as the server runs now. Atomic: the text
 * goes to a temporary file in the same directory (mode 0600: the file holds CHAP secrets), is fsynced, and is
 * renamed over the file, then the directory is fsynced, so a crash leaves either the old or the new file, never a
 * torn one. Before the rename the old file is kept as {@code NAME.backup-YYYYMMDDTHHMMSS.mmmZ} (a hard link, so it
 * costs no copy); the {@value #BACKUPS} newest backups are kept, older ones deleted.
 */
public final class ConfigWriter {
    /** Dated backups kept beside the file (targetcli keeps 10 in /etc/target/backup; ours change per call). */
    public static final int BACKUPS = 3;
    static final String BACKUP_INFIX = ".backup-";
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss.SSS'Z'")
            .withZone(ZoneOffset.UTC);

    /** The loader's key spellings; absent (null) keys are left out so a written file reads like a hand-written one. */
    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .serializationInclusion(JsonInclude.Include.NON_NULL)
            .build();

    private final Clock clock;
    /** The file's text for a configuration: hostwide's JSON, or (for a file that came in LIO's format) LIO's. */
    private final java.util.function.Function<ServeConfig, String> render;

    public ConfigWriter() {
        this(Clock.systemUTC());
    }

    /** A writer of another format: {@code render} gives the file's whole text (serve started from LIO's file). */
    public ConfigWriter(java.util.function.Function<ServeConfig, String> render) {
        this(Clock.systemUTC(), render);
    }

    ConfigWriter(Clock clock) {
        this(clock, ConfigWriter::text);
    }

    private ConfigWriter(Clock clock, java.util.function.Function<ServeConfig, String> render) {
        this.clock = clock;
        this.render = render;
    }

    /** The JSON text of {@code cfg}, as {@link ServeConfigLoader#parse} reads it back. */
    public static String text(ServeConfig cfg) {
        try {
            return MAPPER.writeValueAsString(cfg) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot render the configuration: " + e.getOriginalMessage(), e);
        }
    }

    /** Replaces {@code file} with {@code cfg} atomically, keeping a dated backup of what was there. */
    public void write(Path file, ServeConfig cfg) throws IOException {
        Path abs = file.toAbsolutePath();
        Path dir = abs.getParent();
        byte[] bytes = render.apply(cfg).getBytes(StandardCharsets.UTF_8);
        Path tmp = Files.createTempFile(dir, "." + abs.getFileName() + ".", ".tmp",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                ByteBuffer b = ByteBuffer.wrap(bytes);
                while (b.hasRemaining()) {
                    ch.write(b);
                }
                ch.force(true); // the data is on disk before the name points at it
            }
            Path backup = Files.exists(abs) ? backup(abs) : null;
            try {
                Files.move(tmp, abs, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                throw new IOException(dir + " does not support an atomic rename; not writing " + abs, e);
            }
            if (backup != null) {
                // The backup holds CHAP secrets like the file: private to this user, as the new file is. Only
                // now, once the name points at the new file, is the old inode the backup's alone to change.
                try {
                    Files.setPosixFilePermissions(backup, PosixFilePermissions.fromString("rw-------"));
                } catch (UnsupportedOperationException notPosix) {
                    // no modes to set
                }
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
        fsyncDirectory(dir); // the rename itself survives a crash
        prune(abs);
    }

    /** Keeps the current {@code file} under a dated name; returns that name. */
    private Path backup(Path file) throws IOException {
        String base = file.getFileName() + BACKUP_INFIX + STAMP.format(clock.instant());
        for (int n = 0; ; n++) {
            Path b = file.resolveSibling(n == 0 ? base : base + "-" + n);
            try {
                Files.createLink(b, file);
                return b;
            } catch (FileAlreadyExistsException twiceInOneMillisecond) {
                // next suffix
            } catch (UnsupportedOperationException | IOException noLinks) {
                if (Files.exists(b)) {
                    continue;
                }
                Files.copy(file, b, StandardCopyOption.COPY_ATTRIBUTES);
                return b;
            }
        }
    }

    /** The backups of {@code file}, oldest first. */
    public static List<Path> backups(Path file) throws IOException {
        Path abs = file.toAbsolutePath();
        List<Path> found = new ArrayList<>();
        String prefix = abs.getFileName() + BACKUP_INFIX;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(abs.getParent(), prefix + "*")) {
            ds.forEach(found::add);
        }
        // yyyyMMddTHHmmss.SSSZ sorts as text; a "-n" suffix (same millisecond) sorts after its base
        found.sort(java.util.Comparator.comparing(p -> p.getFileName().toString()));
        return found;
    }

    private static void prune(Path file) throws IOException {
        List<Path> all = backups(file);
        for (int i = 0; i < all.size() - BACKUPS; i++) {
            Files.deleteIfExists(all.get(i));
        }
    }

    private static void fsyncDirectory(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException | UnsupportedOperationException e) {
            // Some filesystems cannot open a directory for fsync; the rename is then as durable as they make it.
        }
    }
}
