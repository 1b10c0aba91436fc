package io.hostwide.management.lio;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The two configuration formats serve reads, told apart by their keys. rtslib-fb's saveconfig.json has
 * {@code storage_objects}, {@code targets} and {@code fabric_modules} at the top, and its targets have {@code wwn},
 * {@code fabric} and {@code tpgs}; hostwide's has {@code backstores}, {@code portals}, {@code session},
 * {@code limits}, {@code discovery_auth}, and targets with {@code name}, {@code luns} and {@code acls}. Only
 * {@code targets} is shared, so a file is read as LIO's exactly when one of LIO's own keys is there, and a file
 * with keys of both is refused rather than guessed at.
 */
public enum ConfigFormat {
    HOSTWIDE("hostwide serve JSON"),
    LIO("rtslib-fb saveconfig.json");

    private static final Set<String> LIO_TOP = Set.of("storage_objects", "fabric_modules");
    private static final Set<String> HOSTWIDE_TOP = Set.of("backstores", "portals", "session", "limits",
            "discovery_auth");
    private static final Set<String> LIO_TARGET = Set.of("wwn", "fabric", "tpgs");
    private static final Set<String> HOSTWIDE_TARGET = Set.of("name", "luns", "acls", "auth", "alias");

    private final String title;

    ConfigFormat(String title) {
        this.title = title;
    }

    /** How messages name the format: "rtslib-fb saveconfig.json". */
    public String title() {
        return title;
    }

    /** The format and the keys that decided it, for messages ("read as ... because of its key 'storage_objects'"). */
    public record Detected(ConfigFormat format, String because) {
    }

    /**
     * The format of a parsed file. Anything that is not a JSON object, or an object with keys of neither format,
     * is hostwide's: its strict loader then says what is wrong.
     *
     * @throws IllegalArgumentException when the file mixes keys only one format or the other has
     */
    public static Detected detect(String file, JsonNode root) {
        if (root == null || !root.isObject()) {
            return new Detected(HOSTWIDE, "it is not a JSON object");
        }
        List<String> lio = new ArrayList<>();
        List<String> ours = new ArrayList<>();
        root.fieldNames().forEachRemaining(k -> {
            if (LIO_TOP.contains(k)) {
                lio.add(k);
            } else if (HOSTWIDE_TOP.contains(k)) {
                ours.add(k);
            }
        });
        JsonNode targets = root.get("targets");
        if (targets != null && targets.isArray()) {
            for (int i = 0; i < targets.size(); i++) {
                JsonNode t = targets.get(i);
                if (t != null && t.isObject()) {
                    int at = i;
                    t.fieldNames().forEachRemaining(k -> {
                        if (LIO_TARGET.contains(k)) {
                            lio.add("targets[" + at + "]." + k);
                        } else if (HOSTWIDE_TARGET.contains(k)) {
                            ours.add("targets[" + at + "]." + k);
                        }
                    });
                }
            }
        }
        if (!lio.isEmpty() && !ours.isEmpty()) {
            throw new IllegalArgumentException(file + ": mixes the keys of two formats: " + LIO.title + " ("
                    + String.join(", ", lio) + ") and " + HOSTWIDE.title + " (" + String.join(", ", ours)
                    + "); a file is one or the other");
        }
        if (!lio.isEmpty()) {
            return new Detected(LIO, "its key '" + lio.get(0) + "'");
        }
        return new Detected(HOSTWIDE, ours.isEmpty() ? "it has no key of " + LIO.title
                : "its key '" + ours.get(0) + "'");
    }
}
