package io.hostwide.cli.util;

import com.fasterxml.jackson.databind.JsonNode;
import io.hostwide.management.util.Json;

import java.util.Iterator;
import java.util.Map;

/**
 * Renders an object tree (maps, lists, records, scalars) the way sysfs reads:
 * one {@code name: value} per line, nested objects indented under their name.
 * The same tree is what {@code --json} prints.
 */
public final class StatPrinter {

    private StatPrinter() {
    }

    public static String text(Object tree) {
        JsonNode node = Json.mapper().valueToTree(tree);
        StringBuilder sb = new StringBuilder();
        render(sb, node, 0);
        return sb.toString();
    }

    private static void render(StringBuilder sb, JsonNode node, int indent) {
        if (node.isObject()) {
            Iterator<Map.Entry<String, JsonNode>> it = node.fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                renderNamed(sb, e.getKey(), e.getValue(), indent);
            }
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                renderNamed(sb, "[" + i + "]", node.get(i), indent);
            }
        } else {
            pad(sb, indent).append(scalar(node)).append('\n');
        }
    }

    private static void renderNamed(StringBuilder sb, String name, JsonNode value, int indent) {
        if (value.isContainerNode() && !isScalarList(value)) {
            pad(sb, indent).append(name).append(":\n");
            render(sb, value, indent + 2);
        } else {
            pad(sb, indent).append(name).append(": ").append(scalar(value)).append('\n');
        }
    }

    private static boolean isScalarList(JsonNode node) {
        if (!node.isArray()) {
            return false;
        }
        for (JsonNode n : node) {
            if (n.isContainerNode()) {
                return false;
            }
        }
        return true;
    }

    private static String scalar(JsonNode n) {
        if (n.isArray()) {
            StringBuilder sb = new StringBuilder("{");
            for (int i = 0; i < n.size(); i++) {
                sb.append(i == 0 ? "" : ", ").append(n.get(i).asText());
            }
            return sb.append('}').toString();
        }
        return n.isNull() ? "-" : n.asText();
    }

    private static StringBuilder pad(StringBuilder sb, int indent) {
        return sb.append(" ".repeat(indent));
    }
}
