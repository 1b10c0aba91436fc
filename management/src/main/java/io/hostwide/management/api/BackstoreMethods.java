package io.hostwide.management.api;

import io.hostwide.management.config.ServeConfig;
import io.hostwide.management.util.Sizes;
import io.hostwide.tcm.lu.Device;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** backstore_*: storage objects (LIO: /backstores/{ramdisk,fileio,...}). */
final class BackstoreMethods {
    /** Settable at creation; the subset {@link #LIVE} also afterwards. */
    private static final List<String> ATTRIBUTES = List.of("block_size", "physical_block_size", "thin", "queue_depth",
            "write_cache", "direct", "removable", "write_protect", "sanitize_rate");
    /** What a running device can change (the rest: delete and create again, or restart). */
    private static final List<String> LIVE = List.of("removable", "write_protect");

    private BackstoreMethods() {
    }

    static void register(ManagementApi api) {
        List<String> create = new ArrayList<>(List.of("name", "type", "size", "path"));
        create.addAll(ATTRIBUTES);
        create.addAll(List.of("pool", "image", "conf", "id", "keyring", "op_timeout", "reservations"));
        api.method("backstore_create", create, "create a ram, file, block, null or rbd backstore",
                p -> create(api, p));
        api.method("backstore_delete", List.of("name"), "delete a backstore no LUN exports",
                p -> delete(api, p.string("name")));
        api.method("backstore_list", List.of(), "every backstore with its size and LUNs",
                p -> ManagementApi.stores(api.current()).keySet().stream().map(n -> describe(api, n)).toList());
        api.method("backstore_get", List.of("name"), "one backstore",
                p -> describe(api, require(api.current(), p.string("name"))));
        List<String> attrs = new ArrayList<>(List.of("name"));
        attrs.addAll(ATTRIBUTES);
        api.method("backstore_set_attributes", attrs, "change device attributes (live: removable, write_protect)",
                p -> setAttributes(api, p));
        api.method("backstore_resize", List.of("name", "size", "allow_shrink"),
                "change a file, null or rbd backstore's size (an rbd image shrinks only with allow_shrink);"
                        + " every nexus gets CAPACITY DATA HAS CHANGED",
                p -> resize(api, p.string("name"), p.optSize("size"), Boolean.TRUE.equals(p.optBool("allow_shrink"))));
    }

    private static Object create(ManagementApi api, Params p) {
        String name = p.string("name");
        ServeConfig.Backstore b = new ServeConfig.Backstore(p.string("type"), p.optSize("size"), p.optString("path"),
                p.optInt("block_size"), p.optBool("thin"), p.optInt("queue_depth"), p.optBool("write_cache"),
                p.optBool("direct"), p.optBool("removable"), p.optBool("write_protect"),
                p.optInt("physical_block_size"), p.optSize("sanitize_rate"), p.optString("pool"),
                p.optString("image"), p.optString("conf"), p.optString("id"), p.optString("keyring"),
                p.optInt("op_timeout"), p.optString("reservations"));
        ServeConfig.Backstore existing = ManagementApi.stores(api.current()).get(name);
        if (existing != null) {
            if (!existing.equals(b)) {
                throw ApiException.domain(ApiException.Reason.EXISTS, "backstore " + name
                        + " exists with another definition").with("existing", ManagementApi.tree(existing, false));
            }
            return created(api, name, false);
        }
        api.change(c -> {
            Map<String, ServeConfig.Backstore> m = new LinkedHashMap<>(ManagementApi.stores(c));
            m.put(name, b);
            return ManagementApi.withBackstores(c, m);
        });
        return created(api, name, true);
    }

    private static Map<String, Object> created(ManagementApi api, String name, boolean created) {
        Map<String, Object> m = ManagementApi.result("created", created);
        m.put("backstore", describe(api, name));
        return m;
    }

    private static Object delete(ManagementApi api, String name) {
        ServeConfig c = api.current();
        if (!ManagementApi.stores(c).containsKey(name)) {
            return ManagementApi.result("deleted", false);
        }
        List<Map<String, Object>> users = exportedAs(c, name);
        if (!users.isEmpty()) {
            throw ApiException.domain(ApiException.Reason.IN_USE, "backstore " + name + " is exported as "
                    + users.size() + " LUN(s); delete them first").with("luns", users);
        }
        api.change(cur -> {
            Map<String, ServeConfig.Backstore> m = new LinkedHashMap<>(ManagementApi.stores(cur));
            m.remove(name);
            return ManagementApi.withBackstores(cur, m);
        });
        return ManagementApi.result("deleted", true);
    }

    private static Object setAttributes(ManagementApi api, Params p) {
        String name = require(api.current(), p.string("name"));
        ServeConfig.Backstore b = ManagementApi.stores(api.current()).get(name);
        ServeConfig.Backstore n = new ServeConfig.Backstore(b.type(), b.size(), b.path(),
                or(p.optInt("block_size"), b.blockSize()), or(p.optBool("thin"), b.thin()),
                or(p.optInt("queue_depth"), b.queueDepth()), or(p.optBool("write_cache"), b.writeCache()),
                or(p.optBool("direct"), b.direct()), or(p.optBool("removable"), b.removable()),
                or(p.optBool("write_protect"), b.writeProtect()),
                or(p.optInt("physical_block_size"), b.physicalBlockSize()),
                or(p.optSize("sanitize_rate"), b.sanitizeRate()), b.pool(), b.image(), b.conf(), b.id(), b.keyring(),
                b.opTimeout(), b.reservations());
        List<String> changes = api.change(c -> {
            Map<String, ServeConfig.Backstore> m = new LinkedHashMap<>(ManagementApi.stores(c));
            m.put(name, n);
            return ManagementApi.withBackstores(c, m);
        });
        Map<String, Object> r = ManagementApi.result("changed", !changes.isEmpty() || !n.equals(b));
        r.put("backstore", describe(api, name));
        return r;
    }

    private static Object resize(ManagementApi api, String name, String size, boolean allowShrink) {
        if (size == null) {
            throw ApiException.badParam("size", "parameter 'size' is required");
        }
        require(api.current(), name);
        ServeConfig.Backstore b = ManagementApi.stores(api.current()).get(name);
        if ("rbd".equals(b.type())) {
            return resizeRbd(api, name, Sizes.parseBytes("size", size), allowShrink);
        }
        if (!"file".equals(b.type()) && !"null".equals(b.type())) {
            throw ApiException.domain(ApiException.Reason.UNSUPPORTED, "a " + b.type()
                    + " backstore cannot be resized (file, null and rbd backstores can)");
        }
        Device d = api.assembly().core().device(name);
        long before = d.blockCount();
        api.change(c -> {
            Map<String, ServeConfig.Backstore> m = new LinkedHashMap<>(ManagementApi.stores(c));
            m.put(name, new ServeConfig.Backstore(b.type(), size, b.path(), b.blockSize(), b.thin(), b.queueDepth(),
                    b.writeCache(), b.direct(), b.removable(), b.writeProtect(), b.physicalBlockSize(),
                    b.sanitizeRate(), b.pool(), b.image(), b.conf(), b.id(), b.keyring(), b.opTimeout(),
                    b.reservations()));
            return ManagementApi.withBackstores(c, m);
        });
        Map<String, Object> r = ManagementApi.result("resized", d.blockCount() != before);
        r.put("size_bytes", d.blockCount() * d.blockSize());
        return r;
    }

    /**
     * An rbd backstore's image is resized in the cluster (rbd_resize); its size is the image's, never stored in the
     * configuration, so the configuration does not change. Unlike a file backstore's, whose shrink only lowers the
     * capacity served and keeps the data, shrinking an image discards the data past the new end: refused unless
     * {@code allow_shrink} is given.
     */
    private static Object resizeRbd(ManagementApi api, String name, long bytes, boolean allowShrink) {
        Device d = api.assembly().core().device(name);
        long before = d.blockCount();
        long current = before * d.blockSize();
        long wanted = bytes / d.blockSize() * d.blockSize();
        if (wanted < current && !allowShrink) {
            throw ApiException.domain(ApiException.Reason.INVALID, "shrinking rbd backstore " + name + " from "
                    + current + " to " + wanted + " bytes would discard the image's data past " + wanted
                    + " bytes; give allow_shrink (admin: --allow-shrink) to shrink it anyway");
        }
        try {
            d.backstore().resize(wanted);
        } catch (IllegalArgumentException e) {
            throw ApiException.badParam("size", e.getMessage());
        } catch (IOException e) {
            throw ApiException.domain(ApiException.Reason.IO_ERROR, "resizing rbd backstore " + name + " failed: "
                    + e.getMessage());
        }
        d.refreshCapacity(); // SPC-4: CAPACITY DATA HAS CHANGED (2Ah/09h) on every nexus
        Map<String, Object> r = ManagementApi.result("resized", d.blockCount() != before);
        r.put("size_bytes", d.blockCount() * d.blockSize());
        return r;
    }

    private static <T> T or(T v, T otherwise) {
        return v != null ? v : otherwise;
    }

    static String require(ServeConfig c, String name) {
        if (!ManagementApi.stores(c).containsKey(name)) {
            throw ApiException.domain(ApiException.Reason.NOT_FOUND, "no backstore " + name).with("backstore", name);
        }
        return name;
    }

    /** The LUNs exporting backstore {@code name}: target and LUN number. */
    static List<Map<String, Object>> exportedAs(ServeConfig c, String name) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (ServeConfig.Target t : ManagementApi.targets(c)) {
            for (ServeConfig.Lun l : t.luns() == null ? List.<ServeConfig.Lun>of() : t.luns()) {
                if (l.backstore().equals(name)) {
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("target", t.name());
                    m.put("lun", l.lun());
                    out.add(m);
                }
            }
        }
        return out;
    }

    private static Map<String, Object> describe(ManagementApi api, String name) {
        ServeConfig c = api.current();
        ServeConfig.Backstore b = ManagementApi.stores(c).get(name);
        @SuppressWarnings("unchecked")
        Map<String, Object> m = ManagementApi.TREE.convertValue(b, LinkedHashMap.class);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("name", name);
        out.putAll(m);
        Device d = api.assembly().core().device(name);
        if (d != null) {
            out.put("size_bytes", d.blockCount() * d.blockSize());
            out.put("logical_block_size", d.blockSize());
        }
        out.put("luns", exportedAs(c, name));
        return out;
    }
}
