package io.hostwide.management.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Iterator;
import java.util.List;

/**
 * A call's params, by name (JSON-RPC 2.0 §4.2), read strictly: a parameter the method does not know, a missing
 * required one or one of the wrong JSON type is invalid params (-32602) naming it, never a silent default.
 */
final class Params {
    private final ObjectNode node;

    private Params(ObjectNode node) {
        this.node = node;
    }

    /** Checks the names against {@code known}; {@code node} may be null (no params). */
    static Params of(ObjectNode node, List<String> known) {
        ObjectNode n = node == null ? com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode() : node;
        for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
            String name = it.next();
            if (!known.contains(name)) {
                throw ApiException.badParam(name, "unknown parameter '" + name + "'"
                        + (known.isEmpty() ? " (this method takes none)" : " (known: " + String.join(", ", known) + ")"));
            }
        }
        return new Params(n);
    }

    boolean has(String name) {
        JsonNode v = node.get(name);
        return v != null && !v.isNull();
    }

    String string(String name) {
        String v = optString(name);
        if (v == null) {
            throw ApiException.badParam(name, "parameter '" + name + "' is required");
        }
        return v;
    }

    String optString(String name) {
        JsonNode v = node.get(name);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isTextual()) {
            throw ApiException.badParam(name, "parameter '" + name + "' must be a string");
        }
        return v.textValue();
    }

    int integer(String name) {
        Integer v = optInt(name);
        if (v == null) {
            throw ApiException.badParam(name, "parameter '" + name + "' is required");
        }
        return v;
    }

    Integer optInt(String name) {
        JsonNode v = node.get(name);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isIntegralNumber() || !v.canConvertToInt()) {
            throw ApiException.badParam(name, "parameter '" + name + "' must be an integer");
        }
        return v.intValue();
    }

    Boolean optBool(String name) {
        JsonNode v = node.get(name);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isBoolean()) {
            throw ApiException.badParam(name, "parameter '" + name + "' must be true or false");
        }
        return v.booleanValue();
    }

    /** A size: a string with a unit ("10g") or a whole number of bytes; kept as text, as the file has it. */
    String optSize(String name) {
        JsonNode v = node.get(name);
        if (v == null || v.isNull()) {
            return null;
        }
        if (v.isIntegralNumber() && v.canConvertToLong() && v.longValue() > 0) {
            return Long.toString(v.longValue());
        }
        if (!v.isTextual()) {
            throw ApiException.badParam(name, "parameter '" + name + "' must be a size (\"10g\" or a number of bytes)");
        }
        try {
            io.hostwide.management.util.Sizes.parseBytes(name, v.textValue());
        } catch (IllegalArgumentException e) {
            throw ApiException.badParam(name, e.getMessage());
        }
        return v.textValue();
    }

    /** An array parameter, or null. */
    JsonNode optArray(String name) {
        JsonNode v = node.get(name);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isArray()) {
            throw ApiException.badParam(name, "parameter '" + name + "' must be an array");
        }
        return v;
    }
}
