package io.hostwide.cli.targetcli;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;

/** {@code ls}: targetcli's tree of the running configuration (one config_get and two list calls, any size). */
final class Tree {

    /** One line of the tree: its path segment, a bracketed summary, its children. */
    record Item(String name, String info, List<Item> children) {
        Item(String name, String info) {
            this(name, info, new ArrayList<>());
        }

        Item add(Item child) {
            children.add(child);
            return child;
        }
    }

    private final Shell sh;

    Tree(Shell sh) {
        this.sh = sh;
    }

    void print(Node at) {
        Commands.require(sh, at);
        Item item = build();
        for (String s : at.segments()) {
            Item next = null;
            for (Item c : item.children()) {
                if (c.name().equals(s)) {
                    next = c;
                }
            }
            if (next == null) {
                throw new Shell.Failure("No such path " + at.path());
            }
            item = next;
        }
        render(item, "", true, true);
    }

    /** targetcli's drawing: a bar below an item that has a later sibling, down to that sibling. */
    private void render(Item item, String prefix, boolean last, boolean top) {
        sh.out.println(prefix + "o- " + (top && item.name().isEmpty() ? "/" : item.name())
                + (item.info().isEmpty() ? "" : " [" + item.info() + "]"));
        for (int i = 0; i < item.children().size(); i++) {
            render(item.children().get(i), prefix + (last ? "  " : "| "), i == item.children().size() - 1, false);
        }
    }

    private Item build() {
        JsonNode cfg = sh.api.call("config_get", null);
        JsonNode stores = sh.api.call("backstore_list", null);
        Item root = new Item("", "");
        Item backstores = root.add(new Item("backstores", ""));
        for (String plugin : Node.PLUGINS) {
            List<Item> objects = new ArrayList<>();
            for (JsonNode b : stores) {
                if (Backstores.plugin(b.path("type").asText()).equals(plugin)) {
                    String where = b.path("path").isTextual() ? b.path("path").asText() + " " : "";
                    objects.add(new Item(b.path("name").asText(), where + "(" + human(b.path("size_bytes").asLong())
                            + ") " + b.path("type").asText() + ", " + (b.path("luns").isEmpty() ? "deactivated"
                            : "activated")));
                }
            }
            backstores.add(new Item(plugin, "Storage Objects: " + objects.size(), objects));
        }
        JsonNode targets = cfg.path("targets");
        Item iscsi = root.add(new Item("iscsi", "Targets: " + targets.size()));
        List<String> portals = new ArrayList<>();
        for (JsonNode p : sh.api.call("portal_list", null)) {
            portals.add(Portals.name(p.path("ip_address").asText(), p.path("port").asInt()));
        }
        for (JsonNode t : targets) {
            Item target = iscsi.add(new Item(t.path("name").asText(), "TPGs: 1"));
            boolean demo = !t.path("acls").isArray();
            Item tpg = target.add(new Item("tpg1", (demo ? "gen-acls" : "no-gen-acls") + ", "
                    + (t.path("auth").isObject() ? "auth per-acl or tpg" : "no-auth")));
            Item acls = tpg.add(new Item("acls", "ACLs: " + t.path("acls").size()));
            for (JsonNode a : t.path("acls")) {
                Item acl = acls.add(new Item(a.path("initiator").asText(), "Mapped LUNs: " + a.path("luns").size()
                        + (a.path("auth").isObject() ? ", auth" : "")));
                for (JsonNode m : a.path("luns")) {
                    int mapped = m.path("mapped_lun").asInt(m.path("lun").asInt());
                    acl.add(new Item("mapped_lun" + mapped, "lun" + m.path("lun").asInt() + " "
                            + (m.path("read_only").asBoolean() ? "(ro)" : "(rw)")));
                }
            }
            Item luns = tpg.add(new Item("luns", "LUNs: " + t.path("luns").size()));
            for (JsonNode l : t.path("luns")) {
                String name = l.path("backstore").asText();
                JsonNode b = cfg.path("backstores").path(name);
                luns.add(new Item("lun" + l.path("lun").asInt(), Backstores.plugin(b.path("type").asText()) + "/"
                        + name + (b.path("path").isTextual() ? " (" + b.path("path").asText() + ")" : "")));
            }
            Item ps = tpg.add(new Item("portals", "Portals: " + portals.size()));
            portals.forEach(p -> ps.add(new Item(p, "OK")));
        }
        return root;
    }

    private static String human(long bytes) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
        double v = bytes;
        int u = 0;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return String.format(java.util.Locale.ROOT, u == 0 ? "%.0f%s" : "%.1f%s", v, units[u]);
    }
}
