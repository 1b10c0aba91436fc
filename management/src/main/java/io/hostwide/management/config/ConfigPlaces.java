package io.hostwide.management.config;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * Where each key of a JSON configuration file is: its path ({@code targets[0].luns[1].backstore}) and the line it
 * starts on, so that a check made after binding still names the file, the line and the key. Built by one streaming
 * pass over text that already parsed.
 *
 * <p>A configuration converted from another format (an rtslib-fb saveconfig.json) is checked with hostwide's keys;
 * {@link #renamed} translates each to the key of the file it came from, so the message names what the operator
 * wrote.
 */
public final class ConfigPlaces {
    private final String file;
    private final Map<String, Integer> lines;
    private final UnaryOperator<String> sourceKey;

    ConfigPlaces(String file, String json) {
        this.file = file;
        this.lines = new HashMap<>();
        this.sourceKey = UnaryOperator.identity();
        try (JsonParser p = new JsonFactory().createParser(json)) {
            for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
                if (!t.isStructEnd()) { // a key's line is where its name is; an array element's where it starts
                    String path = pathOf(p.getParsingContext());
                    if (!path.isEmpty()) {
                        lines.putIfAbsent(path, p.currentTokenLocation().getLineNr());
                    }
                }
            }
        } catch (IOException e) {
            // The text bound already, so it parses; a failure here only costs the line numbers.
        }
    }

    private ConfigPlaces(String file, Map<String, Integer> lines, UnaryOperator<String> sourceKey) {
        this.file = file;
        this.lines = lines;
        this.sourceKey = sourceKey;
    }

    /** The places of the JSON text {@code json}, read from {@code file} (a name for messages). */
    public static ConfigPlaces of(String file, String json) {
        return new ConfigPlaces(file, json);
    }

    /**
     * The same places, for messages about keys of another shape: {@code sourceKey} turns such a key (hostwide's
     * {@code backstores.disk1.size}) into the key of this file it came from ({@code storage_objects[0].size}).
     */
    public ConfigPlaces renamed(UnaryOperator<String> sourceKey) {
        return new ConfigPlaces(file, lines, sourceKey);
    }

    /** The file's name, as messages give it. */
    public String file() {
        return file;
    }

    /** {@code a.b[2].c} for the parser's current place (a field name, or an element of an array). */
    static String pathOf(JsonStreamContext ctx) {
        List<String> parts = new ArrayList<>();
        for (JsonStreamContext c = ctx; c != null && !c.inRoot(); c = c.getParent()) {
            if (c.inObject()) {
                if (c.getCurrentName() != null) {
                    parts.add("." + c.getCurrentName());
                }
            } else if (c.inArray()) {
                parts.add("[" + Math.max(0, c.getCurrentIndex()) + "]");
            }
        }
        StringBuilder sb = new StringBuilder();
        for (int i = parts.size() - 1; i >= 0; i--) {
            sb.append(parts.get(i));
        }
        return sb.length() > 0 && sb.charAt(0) == '.' ? sb.substring(1) : sb.toString();
    }

    /** The line of {@code key}, or of the nearest enclosing key present in the file; 0 when unknown. */
    int line(String key) {
        for (String k = key; !k.isEmpty(); k = parent(k)) {
            Integer l = lines.get(k);
            if (l != null) {
                return l;
            }
        }
        return 0;
    }

    private static String parent(String key) {
        int cut = Math.max(key.lastIndexOf('.'), key.lastIndexOf('['));
        return cut <= 0 ? "" : key.substring(0, cut);
    }

    /** {@code file line N: key} — the start of every message about {@code key}. */
    public String at(String key) {
        String k = sourceKey.apply(key);
        int l = line(k);
        return file + (l > 0 ? " line " + l : "") + ": " + k;
    }

    /** A configuration error about {@code key}; {@code rest} follows the key (" must be ...", ": unknown ..."). */
    public IllegalArgumentException error(String key, String rest) {
        return new IllegalArgumentException(at(key) + rest);
    }
}
