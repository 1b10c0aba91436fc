package io.hostwide.cli.config;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.hostwide.management.lio.ConfigFiles;
import io.hostwide.management.lio.ConfigFormat;
import io.hostwide.management.lio.LioExport;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code hostwide config}: configuration files without a running serve. A command of its own rather than a serve
 * flag: converting needs no portals, memory or socket, and an operator migrating from LIO runs it on any machine.
 */
@Command(name = "config", mixinStandardHelpOptions = true,
        description = "Configuration files, without a running serve.",
        subcommands = {ConfigCommand.Convert.class})
public final class ConfigCommand implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** {@code hostwide config convert}: LIO's saveconfig.json to hostwide's format, or back. */
    @Command(name = "convert", mixinStandardHelpOptions = true,
            description = {"Convert a serve configuration between hostwide's JSON and LIO's saveconfig.json "
                    + "(rtslib-fb format; the input's format is told by its keys).",
                    "What the target format cannot say is one warning line each on stderr."})
    static final class Convert implements Callable<Integer> {

        enum Format { lio, hostwide }

        @Option(names = "--from", required = true, paramLabel = "FILE", description = "The file to read")
        Path from;

        @Option(names = "--to-format", required = true, paramLabel = "FORMAT",
                description = "lio (saveconfig.json, as targetcli saveconfig writes it) or hostwide")
        Format to;

        @Option(names = "--out", paramLabel = "FILE",
                description = "Where to write (default: stdout); written to a temporary file, then renamed, mode 0600 "
                        + "(it may hold CHAP secrets)")
        Path out;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        private static final ObjectMapper HOSTWIDE = JsonMapper.builder()
                .enable(SerializationFeature.INDENT_OUTPUT)
                .serializationInclusion(JsonInclude.Include.NON_NULL)
                .build();

        @Override
        public Integer call() throws IOException {
            ConfigFiles.Loaded loaded = ConfigFiles.load(from);
            List<String> warnings = new ArrayList<>(loaded.warnings());
            String text;
            if (to == Format.lio) {
                LioExport.Result r = LioExport.convert(loaded.config());
                warnings.addAll(r.warnings());
                text = r.text();
            } else {
                Object tree = loaded.format() == ConfigFormat.LIO ? loaded.hostwide() : loaded.config();
                text = HOSTWIDE.writeValueAsString(tree) + "\n";
            }
            var err = spec.commandLine().getErr();
            warnings.forEach(w -> err.println("hostwide config convert: warning: " + w));
            err.flush();
            if (out == null) {
                spec.commandLine().getOut().print(text);
                spec.commandLine().getOut().flush();
            } else {
                write(out, text);
            }
            return 0;
        }

        /** Temp file beside the target, fsync'd, then renamed over it: a reader never sees half a file. */
        private static void write(Path file, String text) throws IOException {
            Path abs = file.toAbsolutePath();
            Path tmp = abs.resolveSibling(abs.getFileName() + ".tmp");
            Files.deleteIfExists(tmp);
            try {
                Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            } catch (UnsupportedOperationException e) {
                Files.createFile(tmp);
            } catch (IOException e) {
                throw new IllegalArgumentException("--out: cannot create " + tmp + ": " + e.getMessage());
            }
            try (var ch = java.nio.channels.FileChannel.open(tmp, java.nio.file.StandardOpenOption.WRITE)) {
                ch.write(java.nio.ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)));
                ch.force(true);
            }
            Files.move(tmp, abs, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
    }
}
