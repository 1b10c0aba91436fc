package io.hostwide.management.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hostwide.management.Admin;
import io.hostwide.management.PortalException;
import io.hostwide.management.RestartRequiredException;
import io.hostwide.management.TargetAssembly;
import io.hostwide.management.config.ConfigKeyException;
import io.hostwide.management.config.ConfigWriter;
import io.hostwide.management.config.Portal;
import io.hostwide.management.config.ServeConfig;
import io.hostwide.management.config.ServeConfigLoader;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * The live management API of a running {@code serve} (README "Management API"). Every change is a change of the
 * configuration model: built from the one in force, checked as a loaded file is checked, applied to the running
 * target through {@link TargetAssembly#reload} (which touches only what differs), then, when serve runs with
 * {@code --config}, written back atomically ({@link ConfigWriter}) so that a restart comes up identical. If the
 * write fails the running target is put back as it was and the call fails: what runs and what is on disk never
 * part.
 *
 * <p>Idempotent: a create of an object identical to one that exists succeeds with {@code "created": false}; one that
 * differs fails with reason {@code exists}. A delete of an object that does not exist succeeds with
 * {@code "deleted": false} (tools retry blindly: the second delete of a retried call must not fail); a missing
 * parent (the target of a LUN) is {@code not_found}. Calls run one at a time, with the old admin commands.
 */
public final class ManagementApi {
    record Method(List<String> params, Function<Params, Object> body, String summary) {
    }

    private final TargetAssembly assembly;
    private final Admin admin;
    private final Path configFile;
    private final ConfigWriter writer;
    private final Map<String, Method> methods = new LinkedHashMap<>();
    private volatile java.util.function.Consumer<ServeConfig> policy = cfg -> { };
    private volatile java.util.function.Function<List<Portal>, List<String>> portalWarnings = p -> List.of();

    /**
     * @param admin the old protocol's handler (status, stats, reload); its lock orders every call
     * @param configFile where changes are persisted, or null (then only {@code config_save} with a path writes)
     */
    public ManagementApi(TargetAssembly assembly, Admin admin, Path configFile) {
        this(assembly, admin, configFile, new ConfigWriter());
    }

    /** @param writer how changes are written to {@code configFile} (in the format serve read it in) */
    public ManagementApi(TargetAssembly assembly, Admin admin, Path configFile, ConfigWriter writer) {
        this.assembly = assembly;
        this.admin = admin;
        this.configFile = configFile;
        this.writer = writer;
        ConfigMethods.register(this);
        BackstoreMethods.register(this);
        TargetMethods.register(this);
        AclMethods.register(this);
        PortalMethods.register(this);
    }

    /**
     * A rule every configuration a call produces must pass besides the file's own checks, so that serve restarts
     * from what was written: serve passes its startup refusal of targets without CHAP beyond loopback. A breach is
     * reason {@code invalid} and changes nothing.
     */
    public ManagementApi policy(java.util.function.Consumer<ServeConfig> rule) {
        this.policy = rule;
        return this;
    }

    /**
     * What serve says about portals opened live beyond loopback (its startup warnings for them: no CHAP, open
     * discovery, --insecure); the answer of portal_create carries them.
     */
    public ManagementApi portalWarnings(java.util.function.Function<List<Portal>, List<String>> warnings) {
        this.portalWarnings = warnings;
        return this;
    }

    List<String> portalWarnings(List<Portal> opened) {
        return portalWarnings.apply(opened);
    }

    void method(String name, List<String> params, String summary, Function<Params, Object> body) {
        methods.put(name, new Method(params, body, summary));
    }

    /** The methods with their parameters, in registration order. */
    public Map<String, List<String>> methods() {
        Map<String, List<String>> m = new LinkedHashMap<>();
        methods.forEach((k, v) -> m.put(k, v.params()));
        return m;
    }

    Map<String, String> summaries() {
        Map<String, String> m = new LinkedHashMap<>();
        methods.forEach((k, v) -> m.put(k, v.summary()));
        return m;
    }

    /** Runs one method; errors are {@link ApiException}s. */
    public Object call(String name, ObjectNode params) {
        Method m = methods.get(name);
        if (m == null) {
            throw ApiException.protocol(ApiException.METHOD_NOT_FOUND, "method not found: '" + name
                    + "' (rpc_get_methods lists them)");
        }
        Params p = Params.of(params, m.params());
        synchronized (admin) {
            try {
                return m.body().apply(p);
            } catch (ApiException e) {
                throw e;
            } catch (RestartRequiredException e) {
                throw ApiException.domain(ApiException.Reason.RESTART_REQUIRED, e.getMessage());
            } catch (PortalException e) {
                throw switch (e.kind()) {
                    case IN_USE -> ApiException.domain(ApiException.Reason.ADDRESS_IN_USE, e.getMessage())
                            .with("address", e.address());
                    case CANNOT_BIND -> ApiException.domain(ApiException.Reason.INVALID, e.getMessage())
                            .with("address", e.address());
                    case FIXED -> ApiException.domain(ApiException.Reason.PORTALS_FIXED, e.getMessage());
                };
            } catch (ConfigKeyException e) {
                throw ApiException.domain(ApiException.Reason.IO_ERROR, e.key() + e.detail());
            } catch (IllegalArgumentException e) {
                throw ApiException.domain(ApiException.Reason.INVALID, e.getMessage());
            } catch (RuntimeException e) {
                throw ApiException.protocol(ApiException.INTERNAL_ERROR, "internal error: " + e);
            }
        }
    }

    /** The configuration in force. */
    ServeConfig current() {
        return assembly.current();
    }

    TargetAssembly assembly() {
        return assembly;
    }

    Admin admin() {
        return admin;
    }

    Path configFile() {
        return configFile;
    }

    ConfigWriter writer() {
        return writer;
    }

    /**
     * Checks, applies and persists {@code edit} of the configuration in force.
     *
     * @return the change lines of the running target (empty when the edit changed nothing)
     */
    List<String> change(UnaryOperator<ServeConfig> edit) {
        ServeConfig before = assembly.current();
        ServeConfig next = edit.apply(before);
        if (next.equals(before)) {
            return List.of();
        }
        ServeConfigLoader.check("request", next);
        policy.accept(next);
        List<String> changes = assembly.reload(next);
        if (configFile != null) {
            try {
                writer.write(configFile, next);
            } catch (IOException | RuntimeException e) {
                try {
                    assembly.reload(before);
                } catch (RuntimeException undo) {
                    e.addSuppressed(undo);
                }
                throw ApiException.domain(ApiException.Reason.IO_ERROR, "cannot write " + configFile + " ("
                        + e.getMessage() + "); the change was undone");
            }
        }
        return changes;
    }

    // Helpers for the method classes: the model is immutable records, so every edit rebuilds the path to its leaf.

    static ServeConfig withBackstores(ServeConfig c, Map<String, ServeConfig.Backstore> stores) {
        return new ServeConfig(c.portals(), c.session(), c.discoveryAuth(), stores, c.targets(), c.limits(),
                c.metrics(), c.gateway());
    }

    static ServeConfig withTargets(ServeConfig c, List<ServeConfig.Target> targets) {
        return new ServeConfig(c.portals(), c.session(), c.discoveryAuth(), c.backstores(), targets, c.limits(),
                c.metrics(), c.gateway());
    }

    static ServeConfig withPortals(ServeConfig c, List<String> portals) {
        return new ServeConfig(portals, c.session(), c.discoveryAuth(), c.backstores(), c.targets(), c.limits(),
                c.metrics(), c.gateway());
    }

    static ServeConfig withDiscoveryAuth(ServeConfig c, ServeConfig.Chap auth) {
        return new ServeConfig(c.portals(), c.session(), auth, c.backstores(), c.targets(), c.limits(),
                c.metrics(), c.gateway());
    }

    static Map<String, ServeConfig.Backstore> stores(ServeConfig c) {
        return c.backstores() == null ? Map.of() : c.backstores();
    }

    static List<ServeConfig.Target> targets(ServeConfig c) {
        return c.targets() == null ? List.of() : c.targets();
    }

    static ServeConfig.Target target(ServeConfig c, String name) {
        for (ServeConfig.Target t : targets(c)) {
            if (t.name().equals(name)) {
                return t;
            }
        }
        return null;
    }

    /** The target named by param {@code param}, or not_found. */
    static ServeConfig.Target requireTarget(ServeConfig c, String name) {
        ServeConfig.Target t = target(c, name);
        if (t == null) {
            throw ApiException.domain(ApiException.Reason.NOT_FOUND, "no target " + name).with("target", name);
        }
        return t;
    }

    /** {@code c} with the target of {@code t}'s name replaced by {@code t}, or {@code t} appended. */
    static ServeConfig replaceTarget(ServeConfig c, ServeConfig.Target t) {
        List<ServeConfig.Target> list = new ArrayList<>(targets(c));
        boolean found = false;
        for (int i = 0; i < list.size(); i++) {
            if (list.get(i).name().equals(t.name())) {
                list.set(i, t);
                found = true;
            }
        }
        if (!found) {
            list.add(t);
        }
        return withTargets(c, list);
    }

    static ServeConfig.Target withLunsAndAcls(ServeConfig.Target t, List<ServeConfig.Lun> luns,
                                              List<ServeConfig.Acl> acls) {
        return new ServeConfig.Target(t.name(), t.alias(), t.auth(), luns, acls);
    }

    /** A JSON tree of {@code value} as the configuration file spells it; CHAP secrets masked unless asked for. */
    static JsonNode tree(Object value, boolean secrets) {
        JsonNode n = TREE.valueToTree(value);
        if (!secrets) {
            mask(n);
        }
        return n;
    }

    private static void mask(JsonNode n) {
        if (n instanceof ObjectNode o) {
            for (String k : List.of("secret", "mutual_secret")) {
                if (o.hasNonNull(k)) {
                    o.put(k, "********");
                }
            }
            o.forEach(ManagementApi::mask);
        } else if (n != null && n.isArray()) {
            n.forEach(ManagementApi::mask);
        }
    }

    static final com.fasterxml.jackson.databind.ObjectMapper TREE = com.fasterxml.jackson.databind.json.JsonMapper
            .builder().serializationInclusion(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL).build();

    static Map<String, Object> result(String key, Object value) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put(key, value);
        return m;
    }
}
