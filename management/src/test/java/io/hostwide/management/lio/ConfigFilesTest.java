package io.hostwide.management.lio;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Telling the two formats apart by their keys, and refusing a file that has both. */
class ConfigFilesTest {

    static JsonNode tree(String text) {
        try {
            return new ObjectMapper().readTree(text);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static ConfigFormat format(String json) {
        return ConfigFormat.detect("f.json", tree(json)).format();
    }

    @Test
    void lioKeysAtTheTopOrInATargetMeanLio() {
        assertEquals(ConfigFormat.LIO, format("{\"storage_objects\": []}"));
        assertEquals(ConfigFormat.LIO, format("{\"fabric_modules\": [], \"targets\": []}"));
        assertEquals(ConfigFormat.LIO, format("{\"targets\": [{\"wwn\": \"iqn.2026-12.x:y\", \"fabric\": \"iscsi\"}]}"));
    }

    @Test
    void everythingElseIsHostwide() {
        assertEquals(ConfigFormat.HOSTWIDE, format("{}"));
        assertEquals(ConfigFormat.HOSTWIDE, format("[]"));
        assertEquals(ConfigFormat.HOSTWIDE, format("{\"backstores\": {}, \"targets\": [{\"name\": \"iqn.2026-12.x:y\"}]}"));
        assertEquals(ConfigFormat.HOSTWIDE, format("{\"targets\": [{\"name\": \"iqn.2026-12.x:y\"}]}"));
    }

    @Test
    void aFileWithKeysOfBothIsRefusedNamingThem() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> format("{\"backstores\": {}, \"storage_objects\": []}"));
        assertEquals("f.json: mixes the keys of two formats: rtslib-fb saveconfig.json (storage_objects) and hostwide "
                + "serve JSON (backstores); a file is one or the other", e.getMessage());
    }

    @Test
    void hostwideFilesKeepTheirOwnMessages() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ConfigFiles.parse("serve.json", "{\n  \"backstores\": {\"r\": {\"type\": \"ram\"}}\n}"));
        assertTrue(e.getMessage().startsWith("serve.json line 2: backstores.r.size is required"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> ConfigFiles.parse("serve.json", "{\n  \"portals\": [,]\n}"));
        assertTrue(e.getMessage().startsWith("serve.json line 2: "), e.getMessage());
    }
}
