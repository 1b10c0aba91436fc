package io.hostwide.management;

import io.hostwide.management.config.ServeConfig;
import io.hostwide.management.config.ServeConfigLoader;
import io.hostwide.management.lio.ConfigFiles;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The admin protocol of a running {@code serve}: one command in, one JSON object back, over the admin socket (and
 * SIGHUP for {@code reload}). Commands run one at a time, so a reload never overlaps a status read half-way.
 */
public final class Admin {
    private final TargetAssembly assembly;
    private final Path config;
    private final MemoryBudget budget;

    /**
     * @param config the file serve was started from, or null (then {@code reload} has nothing to read)
     * @param budget the memory budget in force, or null when the JVM's own limits apply
     */
    public Admin(TargetAssembly assembly, Path config, MemoryBudget budget) {
        this.assembly = assembly;
        this.config = config;
        this.budget = budget;
    }

    /** Answers one command; a bad command or a failed reload throws with a message for the client. */
    public synchronized Map<String, Object> handle(String command) {
        Map<String, Object> reply = new LinkedHashMap<>();
        switch (command) {
            case "status", "status full" -> {
                reply.put("ok", true);
                reply.putAll(assembly.status(command.equals("status full")));
                reply.put("memory", MemoryBudget.status(budget));
            }
            case "stats" -> {
                reply.put("ok", true);
                reply.putAll(assembly.stats());
            }
            case "reload" -> {
                if (config == null) {
                    throw new IllegalArgumentException("serve was started without --config: nothing to reload");
                }
                ConfigFiles.Loaded loaded = ConfigFiles.load(config); // either format, as at startup
                ServeConfig next = loaded.config();
                List<String> changes = ServeConfigLoader.located(loaded.places(), () -> assembly.reload(next));
                reply.put("ok", true);
                reply.put("changes", changes);
                List<String> warnings = new java.util.ArrayList<>(loaded.warnings());
                warnings.addAll(ServeWarnings.of(next, List.of(), false, config));
                if (!warnings.isEmpty()) {
                    reply.put("warnings", warnings);
                }
            }
            default -> throw new IllegalArgumentException("unknown admin command '" + command
                    + "' (known: status, status full, stats, reload)");
        }
        return reply;
    }

    /** A reload for SIGHUP: a failure is reported and changes nothing; the server keeps serving. */
    public String reloadQuietly() {
        try {
            Object changes = handle("reload").get("changes");
            return changes instanceof List<?> l && l.isEmpty() ? "reloaded, no changes" : "reloaded: " + changes;
        } catch (RuntimeException e) {
            return "reload failed, configuration unchanged: " + e.getMessage();
        }
    }
}
