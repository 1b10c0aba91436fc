package io.hostwide.cli.targetcli;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;

/**
 * A place in targetcli's tree, parsed from its path: {@code /backstores/block/NAME},
 * {@code /iscsi/IQN/tpg1/luns/lun0}, {@code /iscsi/IQN/tpg1/acls/WWN/mapped_lun0}, ... Parsing checks the shape
 * only; whether the object exists is the server's to say.
 */
record Node(Kind kind, List<String> segments) {

    enum Kind {
        ROOT, BACKSTORES, PLUGIN, STORAGE_OBJECT, ISCSI, TARGET, TPG, LUNS, LUN, ACLS, ACL, MAPPED_LUN, PORTALS, PORTAL
    }

    /** targetcli's backstore plugins this front end serves, and hostwide's types behind them. */
    static final List<String> PLUGINS = List.of("block", "fileio", "ramdisk");

    static final Node ROOT_NODE = new Node(Kind.ROOT, List.of());

    String path() {
        return "/" + String.join("/", segments);
    }

    String plugin() {
        return segments.get(1);
    }

    String name() {
        return segments.get(2);
    }

    String target() {
        return segments.get(1);
    }

    String initiator() {
        return segments.get(4);
    }

    /** LUN number of a {@code lunN} or {@code mapped_lunN} node. */
    int number() {
        String last = segments.get(segments.size() - 1);
        return Integer.parseInt(last.substring(last.startsWith("mapped_lun") ? 10 : 3));
    }

    /** {@code where} resolved against this node: absolute or relative, with {@code .} and {@code ..}. */
    Node resolve(String where) {
        Deque<String> parts = new ArrayDeque<>();
        if (!where.startsWith("/")) {
            parts.addAll(segments);
        }
        for (String s : where.split("/")) {
            if (s.isEmpty() || s.equals(".")) {
                continue;
            }
            if (s.equals("..")) {
                parts.pollLast();
            } else {
                parts.addLast(s);
            }
        }
        return parse(new ArrayList<>(parts));
    }

    /** The node these segments name, or a {@link Shell.Failure} "No such path" for a shape targetcli has not. */
    static Node parse(List<String> s) {
        Kind k = kind(s);
        if (k == null) {
            int i = 1;
            while (i < s.size() && kind(s.subList(0, i)) != null) {
                i++;
            }
            throw new Shell.Failure(noSuchPath(s.subList(0, i)));
        }
        return new Node(k, List.copyOf(s));
    }

    /**
     * configshell's error for a path that does not resolve ({@code ConfigNode.get_child}): it names the path up to and
     * including the first segment that is not there, "No such path /iscsi/IQN" for {@code /iscsi/IQN/tpg1/luns}.
     */
    static String noSuchPath(List<String> upToFirstMissing) {
        return "No such path /" + String.join("/", upToFirstMissing);
    }

    /** {@link #noSuchPath} for the first {@code n} segments of this node's path. */
    String noSuchPath(int n) {
        return noSuchPath(segments.subList(0, Math.min(n, segments.size())));
    }

    private static Kind kind(List<String> s) {
        if (s.isEmpty()) {
            return Kind.ROOT;
        }
        return switch (s.get(0)) {
            case "backstores" -> switch (s.size()) {
                case 1 -> Kind.BACKSTORES;
                case 2 -> PLUGINS.contains(s.get(1)) ? Kind.PLUGIN : null;
                case 3 -> PLUGINS.contains(s.get(1)) ? Kind.STORAGE_OBJECT : null;
                default -> null;
            };
            case "iscsi" -> iscsi(s);
            default -> null;
        };
    }

    private static Kind iscsi(List<String> s) {
        if (s.size() == 1) {
            return Kind.ISCSI;
        }
        if (s.size() == 2) {
            return Kind.TARGET;
        }
        if (!s.get(2).toLowerCase(Locale.ROOT).matches("tpg[0-9]+")) {
            return null;
        }
        if (s.size() == 3) {
            return Kind.TPG;
        }
        return switch (s.get(3)) {
            case "luns" -> s.size() == 4 ? Kind.LUNS : s.size() == 5 && s.get(4).matches("lun[0-9]{1,5}") ? Kind.LUN
                    : null;
            case "acls" -> s.size() == 4 ? Kind.ACLS : s.size() == 5 ? Kind.ACL
                    : s.size() == 6 && s.get(5).matches("mapped_lun[0-9]{1,5}") ? Kind.MAPPED_LUN : null;
            case "portals" -> s.size() == 4 ? Kind.PORTALS : s.size() == 5 ? Kind.PORTAL : null;
            default -> null;
        };
    }

    /** The TPG tag of a node at or under {@code /iscsi/IQN/tpgN}. */
    int tpgTag() {
        return Integer.parseInt(segments.get(2).substring(3));
    }
}
