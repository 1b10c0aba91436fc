package io.hostwide.management.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.InputCoercionException;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.JsonMappingException;
import io.hostwide.management.util.Sizes;
import io.hostwide.tcm.backstore.RamBackstore;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads and checks a {@link ServeConfig}. Every problem becomes an
 * {@link IllegalArgumentException} whose message names the file, the place
 * (line or key path) and what is wrong — never a stack trace.
 */
public final class ServeConfigLoader {

    /** RFC 7143 §4.2.7.2: iqn., eui. and naa. names (lower-case, no spaces). */
    private static final Pattern ISCSI_NAME = Pattern.compile(
            "iqn\\.\\d{4}-\\d{2}\\.[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?(?::[^\\s]+)?"
                    + "|eui\\.[0-9a-fA-F]{16}|naa\\.(?:[0-9a-fA-F]{16}|[0-9a-fA-F]{32})");
    static final int MAX_LUN = 16383; // SAM-5 flat/peripheral addressing as used by REPORT LUNS here

    /** RFC 7143 §4.2.7.1: an iSCSI name is at most 223 bytes (UTF-8). */
    static final int MAX_ISCSI_NAME_BYTES = 223;

    /**
     * Strict: a duplicate key is an error (not "the last one wins"), and a number is an integer only when written as
     * one ({@code 512.5}, {@code 1e3} and {@code "512"} are refused where an integer is meant).
     */
    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
            .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
            .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
            .build();

    private ServeConfigLoader() {
    }

    public static ServeConfig load(Path file) {
        return parse(file.toString(), read(file));
    }

    /** The text of {@code --config FILE}, whatever its format; a missing or unreadable file is a usage error. */
    public static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("--config: " + file + " does not exist");
        } catch (IOException e) {
            throw new IllegalArgumentException("--config: cannot read " + file + ": " + e.getMessage());
        }
    }

    /**
     * Runs a step that builds from the configuration (opening a file backstore, say); a problem it finds with a key
     * is reported with the file and line of that key, as the loader's own messages are.
     *
     * @param file the configuration file, or null when serve runs without one (the message then names the key only)
     */
    public static <T> T located(Path file, java.util.function.Supplier<T> step) {
        try {
            return step.get();
        } catch (ConfigKeyException e) {
            if (file == null) {
                throw e;
            }
            throw new IllegalArgumentException(places(file).at(e.key()) + e.detail(), e);
        }
    }

    /**
     * As {@link #located(Path, java.util.function.Supplier)}, with the places of a file already read (one converted
     * from another format translates hostwide's keys to its own).
     */
    public static <T> T located(ConfigPlaces places, java.util.function.Supplier<T> step) {
        try {
            return step.get();
        } catch (ConfigKeyException e) {
            throw new IllegalArgumentException(places.at(e.key()) + e.detail(), e);
        }
    }

    /** Where each key of {@code file} is, for messages about problems found after loading; lines unknown if unreadable. */
    public static ConfigPlaces places(Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            text = "{}";
        }
        return new ConfigPlaces(file.toString(), text);
    }

    public static ServeConfig parse(String name, String json) {
        ServeConfig cfg;
        try {
            cfg = MAPPER.readValue(json, ServeConfig.class);
        } catch (UnrecognizedPropertyException e) {
            throw new IllegalArgumentException(name + where(e.getLocation()) + ": unknown key '" + e.getPropertyName()
                    + "' at " + path(e) + " (known: " + String.join(", ", known(e)) + ")");
        } catch (JsonMappingException e) {
            if (e.getCause() instanceof StreamReadException syntax) {
                throw new IllegalArgumentException(name + where(syntax.getLocation()) + ": " + syntaxPath(syntax, e)
                        + plainSyntax(syntax));
            }
            throw new IllegalArgumentException(name + where(e.getLocation()) + ": " + path(e) + ": "
                    + plain(e.getOriginalMessage()));
        } catch (StreamReadException e) {
            throw new IllegalArgumentException(name + where(e.getLocation()) + ": " + syntaxPath(e, null)
                    + plainSyntax(e));
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(name + where(e.getLocation()) + ": not valid JSON: "
                    + plain(e.getOriginalMessage()));
        }
        if (cfg == null) {
            throw new IllegalArgumentException(name + ": empty configuration");
        }
        check(new ConfigPlaces(name, json), cfg);
        return cfg;
    }

    /**
     * Checks a configuration built in memory (a management API call's result) as a loaded file is checked; messages
     * name {@code name} and the key ({@code "request: targets[3].name '...' is not an iSCSI name"}).
     */
    public static void check(String name, ServeConfig cfg) {
        check(new ConfigPlaces(name, "{}"), cfg);
    }

    /** The key a low-level read error happened at ("backstores.ram0.size: "), or nothing at the top level. */
    private static String syntaxPath(StreamReadException syntax, JsonMappingException mapping) {
        // The binder's path misses map keys (backstores.NAME); the parser's context has them. Take the longer.
        String bound = mapping != null && !mapping.getPath().isEmpty() ? path(mapping) : "";
        String parsed = syntax.getProcessor() instanceof JsonParser p && p.getParsingContext() != null
                ? ConfigPlaces.pathOf(p.getParsingContext()) : "";
        String at = parsed.length() > bound.length() ? parsed : bound;
        return at.isEmpty() ? "" : at + ": ";
    }

    /** A duplicate key or a number out of range says so plainly; anything else is "not valid JSON". */
    private static String plainSyntax(StreamReadException e) {
        String m = plain(e.getOriginalMessage());
        if (m.startsWith("Duplicate field ")) {
            return "duplicate key " + m.substring("Duplicate field ".length())
                    + " (each key may appear once; the file is ambiguous)";
        }
        if (e instanceof InputCoercionException) {
            return m;
        }
        return "not valid JSON: " + m;
    }

    /** Jackson's message without class names and source excerpts. */
    private static String plain(String message) {
        String m = message.replaceAll(" \\(class [^)]*\\)", "");
        int cut = m.indexOf(" (for ");
        if (cut < 0) {
            cut = m.indexOf(" at [Source");
        }
        return cut < 0 ? m : m.substring(0, cut);
    }

    private static List<String> known(UnrecognizedPropertyException e) {
        return e.getKnownPropertyIds().stream().map(Object::toString).sorted().toList();
    }

    private static String where(JsonLocation loc) {
        return loc == null || loc.getLineNr() < 0 ? "" : " line " + loc.getLineNr();
    }

    private static String path(JsonMappingException e) {
        StringBuilder sb = new StringBuilder();
        for (JsonMappingException.Reference r : e.getPath()) {
            if (r.getFieldName() != null) {
                sb.append(sb.isEmpty() ? "" : ".").append(r.getFieldName());
            } else if (r.getIndex() >= 0) {
                sb.append('[').append(r.getIndex()).append(']');
            }
        }
        return sb.isEmpty() ? "top level" : sb.toString();
    }

    /**
     * Checks a configuration built by other means than {@link #parse} (converted from an rtslib-fb saveconfig.json):
     * the same rules, each message naming the place {@code places} gives for the key.
     */
    public static ServeConfig checked(ConfigPlaces places, ServeConfig cfg) {
        check(places, cfg);
        return cfg;
    }

    private static void check(ConfigPlaces w, ServeConfig cfg) {
        if (cfg.portals() != null) {
            for (int i = 0; i < cfg.portals().size(); i++) {
                Portal.parse(w.at("portals[" + i + "]"), cfg.portals().get(i));
            }
        }
        if (cfg.session() != null && cfg.session().queueDepth() != null) {
            int qd = cfg.session().queueDepth();
            if (qd < 1 || qd > 4096) {
                throw w.error("session.queue_depth", " " + qd + " is out of range (1..4096)");
            }
        }
        if (cfg.session() != null) {
            checkMillis(w, "session.nop_in_interval_ms", cfg.session().nopInIntervalMs(), 0);
            checkMillis(w, "session.nop_in_timeout_ms", cfg.session().nopInTimeoutMs(), 1);
        }
        checkLimits(w, cfg.limits());
        checkMetrics(w, cfg.metrics());
        checkGateway(w, cfg.gateway());
        checkChap(w, "discovery_auth", cfg.discoveryAuth());
        Map<String, ServeConfig.Backstore> stores = cfg.backstores() == null ? Map.of() : cfg.backstores();
        stores.forEach((n, b) -> checkBackstore(w, "backstores." + n, b));
        if (cfg.targets() == null) {
            return;
        }
        Set<String> names = new HashSet<>();
        Set<String> used = new HashSet<>();
        for (int t = 0; t < cfg.targets().size(); t++) {
            ServeConfig.Target target = cfg.targets().get(t);
            String at = "targets[" + t + "]";
            if (target == null || target.name() == null) {
                throw w.error(at + ".name", " is required");
            }
            checkIscsiName(w, at + ".name", target.name());
            if (!names.add(target.name())) {
                throw w.error(at + ".name", " '" + target.name() + "' is used twice");
            }
            checkChap(w, at + ".auth", target.auth());
            Set<Integer> luns = checkLuns(w, at, target.luns(), stores, used);
            checkAcls(w, at, target.acls(), luns);
        }
    }

    /** RFC 7143 §4.2.7: the iqn./eui./naa. forms, at most 223 bytes. */
    private static void checkIscsiName(ConfigPlaces w, String key, String name) {
        int bytes = name.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_ISCSI_NAME_BYTES) {
            throw w.error(key, " is " + bytes + " bytes long; an iSCSI name is at most " + MAX_ISCSI_NAME_BYTES
                    + " bytes (RFC 7143 §4.2.7.1)");
        }
        if (!ISCSI_NAME.matcher(name).matches()) {
            throw w.error(key, " '" + name
                    + "' is not an iSCSI name (iqn.YYYY-MM.reversed.domain[:id], eui.<16 hex>, naa.<hex>)");
        }
    }

    private static Set<Integer> checkLuns(ConfigPlaces w, String at, List<ServeConfig.Lun> luns,
                                          Map<String, ServeConfig.Backstore> stores, Set<String> used) {
        Set<Integer> seen = new HashSet<>();
        if (luns == null) {
            return seen;
        }
        for (int l = 0; l < luns.size(); l++) {
            ServeConfig.Lun lun = luns.get(l);
            String lat = at + ".luns[" + l + "]";
            if (lun == null || lun.lun() == null || lun.backstore() == null) {
                throw w.error(lat, ": needs \"lun\" and \"backstore\"");
            }
            if (lun.lun() < 0 || lun.lun() > MAX_LUN) {
                throw w.error(lat + ".lun", " " + lun.lun() + " is out of range (0.." + MAX_LUN + ")");
            }
            if (!seen.add(lun.lun())) {
                throw w.error(lat + ".lun", " " + lun.lun() + " is used twice in this target");
            }
            if (!stores.containsKey(lun.backstore())) {
                throw w.error(lat + ".backstore", ": unknown backstore '" + lun.backstore()
                        + "' (defined: " + String.join(", ", stores.keySet()) + ")");
            }
            used.add(lun.backstore());
        }
        return seen;
    }

    private static void checkAcls(ConfigPlaces w, String at, List<ServeConfig.Acl> acls, Set<Integer> luns) {
        if (acls == null) {
            return;
        }
        Set<String> initiators = new HashSet<>();
        for (int a = 0; a < acls.size(); a++) {
            ServeConfig.Acl acl = acls.get(a);
            String aat = at + ".acls[" + a + "]";
            if (acl == null || acl.initiator() == null) {
                throw w.error(aat + ".initiator", " is required (an iSCSI name)");
            }
            checkIscsiName(w, aat + ".initiator", acl.initiator());
            if (!initiators.add(acl.initiator())) {
                throw w.error(aat + ".initiator", " '" + acl.initiator() + "' is listed twice");
            }
            checkChap(w, aat + ".auth", acl.auth());
            if (acl.luns() == null) {
                continue;
            }
            Set<Integer> mapped = new HashSet<>();
            for (int m = 0; m < acl.luns().size(); m++) {
                ServeConfig.MappedLun ml = acl.luns().get(m);
                String mat = aat + ".luns[" + m + "]";
                if (ml == null || ml.lun() == null || !luns.contains(ml.lun())) {
                    throw w.error(mat + ".lun", " must name a LUN of this target");
                }
                int as = ml.mappedLun() == null ? ml.lun() : ml.mappedLun();
                if (as < 0 || as > MAX_LUN || !mapped.add(as)) {
                    throw w.error(mat + ".mapped_lun", " " + as + " is out of range or used twice");
                }
            }
        }
    }

    /**
     * A size; the place ({@code file line N: key}) is worked out only for a message, not per key checked: the
     * management API checks the whole configuration per call, and with 1,000 backstores the eager form was most of it.
     */
    private static long bytes(ConfigPlaces w, String key, String text) {
        try {
            return Sizes.parseBytes(key, text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(w.at(key) + e.getMessage().substring(key.length()), e);
        }
    }

    private static void checkBackstore(ConfigPlaces w, String at, ServeConfig.Backstore b) {
        if (b == null || b.type() == null) {
            throw w.error(at + ".type", " is required (ram, file, block, null or rbd)");
        }
        switch (b.type()) {
            case "ram", "null" -> {
                if (b.path() != null) {
                    throw w.error(at + ".path", " only applies to file and block backstores");
                }
                if (b.direct() != null) {
                    throw w.error(at + ".direct", " (O_DIRECT) only applies to file and block backstores");
                }
            }
            case "file" -> {
                if (b.path() == null || b.path().isBlank()) {
                    throw w.error(at + ".path", " is required for a file backstore");
                }
                checkFilePath(w, at + ".path", b.path());
            }
            case "block" -> {
                if (b.path() == null || b.path().isBlank()) {
                    throw w.error(at + ".path", " is required for a block backstore (e.g. \"/dev/sdb\")");
                }
                checkBlockPath(w, at + ".path", b.path());
            }
            case "rbd" -> checkRbd(w, at, b);
            default -> throw w.error(at + ".type", " '" + b.type() + "' is unknown (ram, file, block, null or rbd)");
        }
        if (!"rbd".equals(b.type())) {
            for (String[] k : new String[][] {{"pool", b.pool()}, {"image", b.image()}, {"conf", b.conf()},
                    {"id", b.id()}, {"keyring", b.keyring()}}) {
                if (k[1] != null) {
                    throw w.error(at + "." + k[0], " only applies to rbd backstores");
                }
            }
            if (b.opTimeout() != null) {
                throw w.error(at + ".op_timeout", " only applies to rbd backstores");
            }
            if (b.reservations() != null) {
                throw w.error(at + ".reservations", " only applies to rbd backstores (the others keep them in"
                        + " this process)");
            }
        }
        if (b.size() != null && bytes(w, at + ".size", b.size()) <= 0) {
            throw w.error(at + ".size", " must be positive");
        }
        if (b.size() == null && !"file".equals(b.type()) && !"block".equals(b.type()) && !"rbd".equals(b.type())) {
            throw w.error(at + ".size", " is required for a " + b.type() + " backstore");
        }
        if (b.blockSize() != null && !(b.blockSize() == 512 || b.blockSize() == 1024
                || b.blockSize() == 2048 || b.blockSize() == 4096)) {
            throw w.error(at + ".block_size", " " + b.blockSize() + " must be 512, 1024, 2048 or 4096");
        }
        if (b.size() != null) {
            long bytes = bytes(w, at + ".size", b.size());
            int bs = b.blockSize() == null ? 512 : b.blockSize();
            if (bytes % bs != 0) {
                throw w.error(at + ".size", " " + b.size() + " is not a multiple of block_size " + bs);
            }
            if ("ram".equals(b.type()) && bytes > RamBackstore.MAX_SIZE) {
                throw w.error(at + ".size", " " + b.size() + " is more than a RAM backstore can be (1 PiB)");
            }
        }
        checkPhysicalBlockSize(w, at, b);
        if (b.sanitizeRate() != null && bytes(w, at + ".sanitize_rate", b.sanitizeRate()) <= 0) {
            throw w.error(at + ".sanitize_rate", " must be positive (bytes per second, e.g. \"128m\")");
        }
        if (b.queueDepth() != null && (b.queueDepth() < 1 || b.queueDepth() > 4096)) {
            throw w.error(at + ".queue_depth", " " + b.queueDepth() + " is out of range (1..4096)");
        }
    }

    /**
     * An RBD image: pool and image are required, conf (when given) must be a readable file; its size is the image's,
     * and the client's timeout a whole number of seconds. Whether the cluster answers is known only when serving.
     */
    private static void checkRbd(ConfigPlaces w, String at, ServeConfig.Backstore b) {
        if (b.pool() == null || b.pool().isBlank()) {
            throw w.error(at + ".pool", " is required for an rbd backstore (e.g. \"rbd\")");
        }
        if (b.image() == null || b.image().isBlank()) {
            throw w.error(at + ".image", " is required for an rbd backstore (the RBD image name)");
        }
        if (b.path() != null) {
            throw w.error(at + ".path", " does not apply to rbd backstores (pool, image and conf name the image)");
        }
        if (b.size() != null) {
            throw w.error(at + ".size", " does not apply to rbd backstores: the size is the image's (rbd resize)");
        }
        if (b.thin() != null || b.direct() != null) {
            throw w.error(at + (b.thin() != null ? ".thin" : ".direct"), " does not apply to rbd backstores");
        }
        if (b.conf() != null && !Files.isReadable(Path.of(b.conf()))) {
            throw w.error(at + ".conf", " " + b.conf() + " is not a readable file (the cluster's ceph.conf)");
        }
        if (b.keyring() != null && !Files.isReadable(Path.of(b.keyring()))) {
            throw w.error(at + ".keyring", " " + b.keyring() + " is not a readable file");
        }
        if (b.blockSize() != null && b.blockSize() != 512 && b.blockSize() != 4096) {
            throw w.error(at + ".block_size", " " + b.blockSize() + " must be 512 or 4096 for an rbd backstore");
        }
        if (b.opTimeout() != null && (b.opTimeout() < 0 || b.opTimeout() > 3600)) {
            throw w.error(at + ".op_timeout", " " + b.opTimeout() + " is out of range (0 = none, or 1..3600 seconds)");
        }
        if (b.reservations() != null && !ServeConfig.Backstore.RESERVATIONS_RADOS.equals(b.reservations())
                && !ServeConfig.Backstore.RESERVATIONS_LOCAL.equals(b.reservations())) {
            throw w.error(at + ".reservations", " '" + b.reservations() + "' is unknown: \"rados\" (shared by every"
                    + " gateway of the image, the default) or \"local\" (this gateway only)");
        }
    }

    /**
     * What can be known of a file backstore's path before serving: it is not a directory, and the directory it goes
     * in exists (serve creates the file, never directories). Opening it can still fail; the assembly then names the
     * backstore too.
     */
    private static void checkFilePath(ConfigPlaces w, String key, String text) {
        Path p;
        try {
            p = Path.of(text);
        } catch (InvalidPathException e) {
            throw w.error(key, " '" + text + "' is not a valid path: " + e.getReason());
        }
        if (Files.isDirectory(p)) {
            throw w.error(key, " " + text + " is a directory; give the path of an image file (created if missing)");
        }
        Path parent = p.toAbsolutePath().getParent();
        if (!Files.exists(p) && parent != null && Files.exists(parent) && !Files.isDirectory(parent)) {
            throw w.error(key, " " + text + ": " + parent + " is not a directory");
        }
        if (!Files.exists(p) && parent != null && !Files.isDirectory(parent)) {
            throw w.error(key, " " + text + ": the directory " + parent + " does not exist (serve creates the file, "
                    + "not its directory)");
        }
    }

    /**
     * A block backstore's path names an existing block device (symlinks followed) that serve may read and write.
     * Whether it is mounted or otherwise held is found when it is opened (exclusively), with this key in the message.
     */
    private static void checkBlockPath(ConfigPlaces w, String key, String text) {
        Path p;
        try {
            p = Path.of(text);
        } catch (InvalidPathException e) {
            throw w.error(key, " '" + text + "' is not a valid path: " + e.getReason());
        }
        if (!Files.exists(p)) {
            throw w.error(key, " " + text + " does not exist");
        }
        if (!isBlockDevice(p)) {
            String what = Files.isDirectory(p) ? "a directory" : Files.isRegularFile(p)
                    ? "a regular file (use \"type\": \"file\" for image files)" : "not a block device";
            throw w.error(key, " " + text + " is " + what);
        }
        if (!Files.isReadable(p) || !Files.isWritable(p)) {
            throw w.error(key, " " + text + " is not readable and writable by this user");
        }
    }

    /**
     * S_ISBLK of the node a path leads to (the format package reads files, it opens no device: the backstore's
     * own probe, at assembly, reads sysfs).
     */
    private static boolean isBlockDevice(Path p) {
        try {
            return (((Integer) Files.getAttribute(p, "unix:mode")) & 0170000) == 0060000;
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException | ClassCastException e) {
            return false;
        }
    }

    /** SBC-4 §5.22.2: 2^LBPPBE logical blocks per physical block, the exponent being a 4-bit field. */
    private static void checkPhysicalBlockSize(ConfigPlaces w, String at, ServeConfig.Backstore b) {
        if (b.physicalBlockSize() == null) {
            return;
        }
        int bs = b.blockSize() == null ? 512 : b.blockSize();
        long pbs = b.physicalBlockSize();
        if (pbs < bs || pbs % bs != 0 || Long.bitCount(pbs / bs) != 1 || pbs / bs > 1 << 15) {
            throw w.error(at + ".physical_block_size", " " + pbs + " must be block_size " + bs
                    + " times a power of two (1 to 32768), e.g. " + Math.max(bs, 4096));
        }
    }

    /**
     * The gateway section: a name, a port group 1..65535 (TPGT, ALUA group, relative port id), implicit/explicit,
     * a handover timeout in range.
     */
    private static void checkGateway(ConfigPlaces w, ServeConfig.Gateway g) {
        if (g == null) {
            return;
        }
        if (g.name() == null || g.name().isBlank()) {
            throw w.error("gateway.name", " is required (this gateway's name, e.g. \"gw-a\")");
        }
        if (!g.name().matches("[A-Za-z0-9._-]{1,64}")) {
            throw w.error("gateway.name", " '" + g.name() + "' must be 1..64 letters, digits, '.', '_' or '-'");
        }
        if (g.portGroup() == null) {
            throw w.error("gateway.port_group", " is required (1..65535, different on every gateway)");
        }
        if (g.portGroup() < 1 || g.portGroup() > 0xFFFF) {
            throw w.error("gateway.port_group", " " + g.portGroup() + " is out of range (1..65535)");
        }
        if (g.alua() != null && !g.alua().equals("implicit") && !g.alua().equals("explicit")) {
            throw w.error("gateway.alua", " '" + g.alua() + "' is unknown (implicit or explicit)");
        }
        Long t = g.handoverTimeoutMs();
        if (t != null && (t < ServeConfig.Gateway.MIN_HANDOVER_TIMEOUT_MS
                || t > ServeConfig.Gateway.MAX_HANDOVER_TIMEOUT_MS)) {
            throw w.error("gateway.handover_timeout_ms", " " + t + " is out of range ("
                    + ServeConfig.Gateway.MIN_HANDOVER_TIMEOUT_MS + ".." + ServeConfig.Gateway.MAX_HANDOVER_TIMEOUT_MS
                    + " ms; default " + ServeConfig.Gateway.DEFAULT_HANDOVER_TIMEOUT_MS + ")");
        }
    }

    private static void checkMetrics(ConfigPlaces w, ServeConfig.Metrics m) {
        if (m == null) {
            return;
        }
        if (m.listen() == null) {
            throw w.error("metrics.listen", " is required (HOST:PORT, or PORT for loopback)");
        }
        Portal.parseHttp(w.at("metrics.listen"), m.listen());
        if (m.compat() != null && !m.compat().equals("ceph-iscsi") && !m.compat().equals("none")) {
            throw w.error("metrics.compat", " '" + m.compat() + "' is unknown (ceph-iscsi or none)");
        }
    }

    /** Pending-login caps: each 1..65536, and one address never allowed more than all of them together. */
    private static void checkLimits(ConfigPlaces w, ServeConfig.Limits limits) {
        if (limits == null) {
            return;
        }
        checkCount(w, "limits.pending_logins", limits.pendingLogins());
        checkCount(w, "limits.pending_logins_per_address", limits.pendingLoginsPerAddress());
        if (limits.perAddress() > limits.total()) { // only when both are set, or per address above the default
            throw w.error("limits.pending_logins_per_address", " " + limits.perAddress()
                    + " is more than limits.pending_logins (" + limits.total() + ")");
        }
        if (limits.ramBudget() != null) {
            long bytes = Sizes.parseBytes(w.at("limits.ram_budget"), limits.ramBudget());
            if (bytes < RamBackstore.PAGE_SIZE) {
                throw w.error("limits.ram_budget", " " + limits.ramBudget() + " is less than one RAM page ("
                        + RamBackstore.PAGE_SIZE / 1024 + "k)");
            }
        }
    }

    private static void checkCount(ConfigPlaces w, String key, Integer n) {
        if (n != null && (n < 1 || n > 65_536)) {
            throw w.error(key, " " + n + " is out of range (1..65536)");
        }
    }

    /** A NOP-In setting: {@code min} .. one hour, in milliseconds. */
    private static void checkMillis(ConfigPlaces w, String key, Integer ms, int min) {
        if (ms != null && (ms < min || ms > 3_600_000)) {
            throw w.error(key, " " + ms + " is out of range (" + min + "..3600000)");
        }
    }

    private static void checkChap(ConfigPlaces w, String key, ServeConfig.Chap chap) {
        if (chap == null) {
            return;
        }
        if (chap.user() == null || chap.user().isEmpty() || chap.secret() == null) {
            throw w.error(key, ": needs \"user\" and \"secret\"");
        }
        // RFC 7143 §12.1.3 recommends secrets of at least 96 bits; initiators such as open-iscsi reject shorter ones.
        if (chap.secret().length() < 12 || chap.secret().length() > 255) {
            throw w.error(key + ".secret", " must be 12 to 255 characters (RFC 7143 §12.1.3)");
        }
        if ((chap.mutualUser() == null) != (chap.mutualSecret() == null)) {
            throw w.error(key, ": mutual_user and mutual_secret go together");
        }
        if (chap.mutualSecret() != null) {
            if (chap.mutualSecret().length() < 12 || chap.mutualSecret().length() > 255) {
                throw w.error(key + ".mutual_secret", " must be 12 to 255 characters");
            }
            if (chap.mutualSecret().equals(chap.secret())) {
                throw w.error(key, ": mutual_secret must differ from secret (RFC 7143 §12.1.3)");
            }
        }
    }
}
