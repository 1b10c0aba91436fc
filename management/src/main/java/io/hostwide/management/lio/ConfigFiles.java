package io.hostwide.management.lio;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hostwide.management.config.ConfigPlaces;
import io.hostwide.management.config.ServeConfig;
import io.hostwide.management.config.ServeConfigLoader;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Reads a configuration file of either format ({@link ConfigFormat}): hostwide's own through
 * {@link ServeConfigLoader}, an rtslib-fb saveconfig.json through {@link LioImport} and then hostwide's checks, whose
 * messages name the LIO keys the values came from. Every message about an LIO file says it was read as one, and why.
 */
public final class ConfigFiles {

    /**
     * A file read.
     *
     * @param config the checked configuration
     * @param format the format it was read as
     * @param warnings what the file says that hostwide does not do (LIO files; one line each)
     * @param places where its keys are, in messages about problems found later (opening a backstore)
     * @param hostwide the configuration in hostwide's JSON format, as converted (null for a hostwide file)
     */
    public record Loaded(ServeConfig config, ConfigFormat format, List<String> warnings, ConfigPlaces places,
                         ObjectNode hostwide) {
    }

    private static final ObjectMapper TREE = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    /** As strict as the loader's own binding: an unknown key is a bug in the importer, never let through. */
    private static final ObjectMapper BIND = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
            .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
            .build();

    private ConfigFiles() {
    }

    /** {@code --config FILE}: read, detect, convert, check. */
    public static Loaded load(Path file) {
        return parse(file.toString(), ServeConfigLoader.read(file));
    }

    /** As {@link #load}, for text already read; {@code name} is the file's name in messages. */
    public static Loaded parse(String name, String text) {
        JsonNode root;
        try {
            root = TREE.readTree(text);
        } catch (JsonProcessingException e) {
            // Not JSON at all: hostwide's loader says where and why, as it always has.
            ServeConfigLoader.parse(name, text);
            throw new IllegalArgumentException(name + ": not valid JSON: " + e.getOriginalMessage());
        }
        ConfigFormat.Detected detected = ConfigFormat.detect(name, root);
        ConfigPlaces places = ConfigPlaces.of(name, text);
        if (detected.format() == ConfigFormat.HOSTWIDE) {
            return new Loaded(ServeConfigLoader.parse(name, text), ConfigFormat.HOSTWIDE, List.of(), places, null);
        }
        try {
            LioImport.Result r = LioImport.convert(places, root);
            ConfigPlaces renamed = places.renamed(r.sourceKey());
            ServeConfigLoader.checked(renamed, r.config());
            return new Loaded(r.config(), ConfigFormat.LIO, r.warnings(), renamed, r.hostwide());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage() + " (read as " + ConfigFormat.LIO.title()
                    + " because of " + detected.because() + ")", e);
        }
    }

    /** Binds a hostwide-format tree (built by the importer) as the loader would. */
    static ServeConfig bind(ObjectNode hostwide) {
        try {
            return BIND.treeToValue(hostwide, ServeConfig.class);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(e.getOriginalMessage(), e);
        }
    }
}
