package io.hostwide.management.api;

import io.hostwide.management.config.ServeConfig;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The whole server: status, stats, reload, the configuration out, the method list. */
final class ConfigMethods {
    private ConfigMethods() {
    }

    static void register(ManagementApi api) {
        api.method("rpc_get_methods", List.of(), "the methods and their parameters",
                p -> api.methods());
        api.method("status", List.of("full"), "portals, counts of targets, LUNs, ACLs and sessions, memory; full: "
                        + "every target and session too (as 'hostwide admin status [--full]')",
                p -> old(api, Boolean.TRUE.equals(p.optBool("full")) ? "status full" : "status"));
        api.method("stats", List.of(), "per backstore I/O counters and latency percentiles",
                p -> old(api, "stats"));
        api.method("reload", List.of(), "re-read --config and apply the difference live",
                p -> old(api, "reload"));
        api.method("config_get", List.of("include_secrets"), "the running configuration (CHAP secrets masked)",
                p -> ManagementApi.tree(api.current(), Boolean.TRUE.equals(p.optBool("include_secrets"))));
        api.method("config_save", List.of("path"), "write the running configuration to path (default: --config)",
                p -> save(api, p.optString("path")));
    }

    private static Object old(ManagementApi api, String command) {
        Map<String, Object> m = new LinkedHashMap<>(api.admin().handle(command));
        m.remove("ok");
        return m;
    }

    private static Object save(ManagementApi api, String path) {
        Path file = path != null ? Path.of(path) : api.configFile();
        if (file == null) {
            throw ApiException.badParam("path", "serve runs without --config: give a path to write to");
        }
        if (file.toAbsolutePath().getParent() == null || !Files.isDirectory(file.toAbsolutePath().getParent())) {
            throw ApiException.domain(ApiException.Reason.NOT_FOUND, "no directory for " + file);
        }
        ServeConfig cfg = api.current();
        try {
            api.writer().write(file, cfg);
        } catch (IOException e) {
            throw ApiException.domain(ApiException.Reason.IO_ERROR, "cannot write " + file + ": " + e.getMessage());
        }
        return ManagementApi.result("path", file.toAbsolutePath().toString());
    }
}
