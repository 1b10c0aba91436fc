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

/**
 * Where each key of a JSON configuration file is: its path ({@code targets[0].luns[1].backstore}) and the line it
 * starts on, so that a check made after binding still names the file, the line and the key. Built by one streaming
 * pass over text that already parsed.
 */
public final class ConfigPlaces {
    private final String file;
    private final Map<String, Integer> lines = new HashMap<>();

    ConfigPlaces(String file, String json) {
        this.file = file;
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
    String at(String key) {
        int l = line(key);
        return file + (l > 0 ? " line " + l : "") + ": " + key;
    }

    /** A configuration error about {@code key}; {@code rest} follows the key (" must be ...", ": unknown ..."). */
    IllegalArgumentException error(String key, String rest) {
        return new IllegalArgumentException(at(key) + rest);
    }
}
