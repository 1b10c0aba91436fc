package io.hostwide.cli.targetcli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hostwide.management.lio.LioTables;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** {@code /backstores/{block,fileio,ramdisk}}: storage objects as hostwide backstores (block, file, ram/null). */
final class Backstores {
    private static final Pattern SIZE = Pattern.compile("([0-9]+)\\s*([kmgt]?)(i?b)?", Pattern.CASE_INSENSITIVE);
    /** What backstore_get returns beyond the definition itself. */
    private static final List<String> DERIVED = List.of("name", "size_bytes", "logical_block_size", "luns");

    private Backstores() {
    }

    /** targetcli's plugin for a hostwide backstore type (a null backstore is a ramdisk with nullio=true). */
    static String plugin(String type) {
        return switch (type) {
            case "block" -> "block";
            case "file" -> "fileio";
            default -> "ramdisk";
        };
    }

    static void create(Shell sh, String plugin, List<String> args) {
        ObjectNode p = Api.params();
        Map<String, String> a;
        switch (plugin) {
            case "block" -> {
                a = Shell.bind(args, List.of("name", "dev", "readonly", "wwn", "exclusive"));
                need(a, "dev");
                if (a.containsKey("exclusive") && !Shell.bool("exclusive", a.get("exclusive"))) {
                    throw new Shell.Failure("exclusive=false is refused: hostwide always opens a block device "
                            + "exclusively (O_EXCL), targetcli's default, so no one mounts it while it is exported");
                }
                p.put("type", "block").put("path", a.get("dev"));
                if (a.containsKey("readonly") && Shell.bool("readonly", a.get("readonly"))) {
                    p.put("write_protect", true);
                }
            }
            case "fileio" -> {
                a = Shell.bind(args, List.of("name", "file_or_dev", "size", "write_back", "sparse", "wwn"));
                need(a, "file_or_dev");
                p.put("type", "file").put("path", a.get("file_or_dev"));
                if (fileSize(sh, a)) {
                    p.put("size", size(a.get("size")));
                }
                // targetcli's default is write_back=True: the device reports a volatile write cache (WCE=1)
                p.put("write_cache", !a.containsKey("write_back") || Shell.bool("write_back", a.get("write_back")));
                if (a.containsKey("sparse") && !Shell.bool("sparse", a.get("sparse"))) {
                    throw new Shell.Failure("sparse=false is refused: hostwide does not preallocate files; create "
                            + "the file at its full size first (fallocate -l SIZE FILE), then create the backstore");
                }
            }
            default -> {
                a = Shell.bind(args, List.of("name", "size", "nullio", "wwn"));
                need(a, "size");
                boolean nullio = a.containsKey("nullio") && Shell.bool("nullio", a.get("nullio"));
                p.put("type", nullio ? "null" : "ram").put("size", size(a.get("size")));
            }
        }
        need(a, "name");
        if (a.containsKey("wwn")) {
            throw new Shell.Failure("wwn= is refused: hostwide derives a backstore's unit serial number and NAA "
                    + "identifier from its name");
        }
        p.put("name", a.get("name"));
        JsonNode r = sh.api.call("backstore_create", p);
        JsonNode b = r.path("backstore");
        if (!r.path("created").asBoolean()) {
            sh.out.println("Storage object " + plugin + "/" + a.get("name") + " already exists as asked; unchanged.");
            return;
        }
        switch (plugin) {
            case "block" -> sh.out.println("Created block storage object " + a.get("name") + " using "
                    + a.get("dev") + ".");
            case "fileio" -> sh.out.println("Created fileio " + a.get("name") + " with size "
                    + b.path("size_bytes").asLong());
            default -> sh.out.println("Created ramdisk " + a.get("name") + " with size " + a.get("size") + ".");
        }
    }

    /**
     * UIFileIOBackstore.ui_command_create (ui_backstore.py) for a new object: an existing file keeps its size ("FILE
     * exists, using its size (N bytes) instead" when one was given), a new file needs one, a directory is refused.
     * serve reads the same file system (the admin socket is local). A retried create of an existing backstore passes
     * the size on as given, for the API's "exists as asked" comparison.
     *
     * @return whether the given size is to be sent
     */
    private static boolean fileSize(Shell sh, Map<String, String> a) {
        String file = a.get("file_or_dev");
        java.nio.file.Path f = java.nio.file.Path.of(file);
        if (a.containsKey("name") && find(sh, a.get("name")) != null) {
            return a.containsKey("size");
        }
        if (java.nio.file.Files.isRegularFile(f)) {
            if (a.containsKey("size")) {
                try {
                    sh.out.println(file + " exists, using its size (" + java.nio.file.Files.size(f) + " bytes) instead");
                } catch (java.io.IOException e) {
                    throw new Shell.Failure("Could not open " + file);
                }
            }
            return false;
        }
        if (java.nio.file.Files.isDirectory(f)) {
            throw new Shell.Failure("Path " + file + " exists but is not a file");
        }
        if (!java.nio.file.Files.exists(f) && !a.containsKey("size")) {
            throw new Shell.Failure("Attempting to create file for new fileio backstore, need a size");
        }
        return a.containsKey("size");
    }

    static void delete(Shell sh, String plugin, List<String> args) {
        Map<String, String> a = Shell.bind(args, List.of("name"));
        need(a, "name");
        String name = a.get("name");
        JsonNode b = find(sh, name);
        if (b == null) {
            sh.out.println("No storage object named " + name + "; nothing to delete.");
            return;
        }
        if (!plugin(b.path("type").asText()).equals(plugin)) {
            throw new Shell.Failure("No storage object named " + name + " in /backstores/" + plugin + " (it is "
                    + "/backstores/" + plugin(b.path("type").asText()) + "/" + name + ")");
        }
        sh.api.call("backstore_delete", Api.params().put("name", name));
        sh.out.println("Deleted storage object " + name + ".");
    }

    /** The backstore {@code name}, or null. */
    static JsonNode find(Shell sh, String name) {
        try {
            return sh.api.call("backstore_get", Api.params().put("name", name));
        } catch (Api.Error e) {
            if (e.reason.equals("not_found")) {
                return null;
            }
            throw e;
        }
    }

    /** The storage object a node names; "No such path" when there is none of that plugin. */
    static JsonNode require(Shell sh, Node n) {
        JsonNode b = find(sh, n.name());
        if (b == null || !plugin(b.path("type").asText()).equals(n.plugin())) {
            throw new Shell.Failure("No such path " + n.path());
        }
        return b;
    }

    /**
     * {@code set attribute k=v ...} on a storage object: LIO's device attributes that have a hostwide key are set
     * through it; those hostwide has fixed are accepted at hostwide's value and refused at another; the rest have
     * no equivalent and are refused, so a tool never believes a setting took that did not.
     */
    static void setAttributes(Shell sh, Node n, Map<String, String> kv) {
        JsonNode b = require(sh, n);
        ObjectNode change = Api.params();
        for (Map.Entry<String, String> e : kv.entrySet()) {
            String k = e.getKey();
            String v = e.getValue();
            switch (k) {
                case "block_size" -> change.put("block_size", integer(k, v));
                case "emulate_tpu", "emulate_tpws" -> change.put("thin", Shell.bool(k, v));
                case "emulate_write_cache" -> change.put("write_cache", Shell.bool(k, v));
                case "queue_depth" -> change.put("queue_depth", integer(k, v));
                default -> {
                    LioTables.Fixed f = LioTables.device(k);
                    if (f == null) {
                        throw new Shell.Failure("Unknown attribute " + k + ": hostwide has no equivalent");
                    }
                    if (!f.value().equals(v)) {
                        throw new Shell.Failure("Cannot set " + k + "=" + v + ": " + f.why() + " (" + k + "="
                                + f.value() + ")");
                    }
                }
            }
        }
        if (!sameAsNow(b, change)) {
            apply(sh, n, b, change);
        }
        kv.forEach((k, v) -> sh.out.println("Parameter " + k + " is now '" + v + "'."));
    }

    /** Whether the backstore already has every value asked (its defaults counted: thin unless "thin": false). */
    private static boolean sameAsNow(JsonNode b, ObjectNode change) {
        for (Map.Entry<String, JsonNode> c : change.properties()) {
            JsonNode now = switch (c.getKey()) {
                case "block_size" -> b.get("logical_block_size");
                case "thin" -> b.path("thin").isBoolean() ? b.get("thin")
                        : com.fasterxml.jackson.databind.node.BooleanNode.TRUE;
                default -> b.get(c.getKey());
            };
            if (now == null || now.isNull() || !now.asText().equals(c.getValue().asText())) {
                return false;
            }
        }
        return true;
    }

    /**
     * A running device changes only its live attributes; a backstore no LUN exports yet (targetcli scripts set
     * attributes right after create) is created again with the new ones, which touches nobody.
     */
    private static void apply(Shell sh, Node n, JsonNode b, ObjectNode change) {
        try {
            sh.api.call("backstore_set_attributes", change.deepCopy().put("name", n.name()));
            return;
        } catch (Api.Error e) {
            if (!e.reason.equals("restart_required") || !b.path("luns").isEmpty()) {
                throw e;
            }
        }
        ObjectNode def = Api.params();
        Map<String, JsonNode> fields = new LinkedHashMap<>();
        b.properties().forEach(f -> fields.put(f.getKey(), f.getValue()));
        fields.forEach((k, v) -> {
            if (!DERIVED.contains(k) && !v.isNull()) {
                def.set(k, v);
            }
        });
        def.setAll(change);
        def.put("name", n.name());
        sh.api.call("backstore_delete", Api.params().put("name", n.name()));
        try {
            sh.api.call("backstore_create", def);
        } catch (Api.Error e) {
            ObjectNode back = Api.params();
            fields.forEach((k, v) -> {
                if (!DERIVED.contains(k) && !v.isNull()) {
                    back.set(k, v);
                }
            });
            sh.api.call("backstore_create", back.put("name", n.name()));
            throw e;
        }
    }

    /** targetcli's sizes (10G, 10GB, 10GiB, 512M, bytes) in the API's spelling. */
    static String size(String s) {
        Matcher m = SIZE.matcher(s.trim());
        if (!m.matches()) {
            throw new Shell.Failure("Invalid size '" + s + "' (e.g. 10G, 512M, or bytes)");
        }
        return m.group(1) + m.group(2).toLowerCase(Locale.ROOT);
    }

    private static int integer(String key, String v) {
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new Shell.Failure("Invalid value '" + v + "' for " + key + " (an integer)");
        }
    }

    private static void need(Map<String, String> a, String key) {
        if (!a.containsKey(key) || a.get(key).isEmpty()) {
            throw new Shell.Failure("Missing required parameter " + key);
        }
    }
}
