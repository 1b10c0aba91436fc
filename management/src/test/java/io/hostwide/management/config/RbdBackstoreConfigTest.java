package io.hostwide.management.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code "type": "rbd"} in serve's configuration (issue 15): what can be checked before serving, by file, line and
 * key — pool and image required, conf and keyring readable files, the keys of other kinds refused, the keys of rbd
 * refused on other kinds. (Opening the image is the assembly's; the tcm module tests it against a real cluster.)
 */
class RbdBackstoreConfigTest {

    private static String config(String backstore) {
        return """
                {
                  "backstores": {
                    "d": %s
                  },
                  "targets": [ { "name": "iqn.2026-12.io.hostwide:t", "luns": [ { "lun": 0, "backstore": "d" } ] } ]
                }
                """.formatted(backstore);
    }

    @Test
    void aCompleteDefinitionParses(@TempDir Path dir) throws IOException {
        Path conf = Files.writeString(dir.resolve("ceph.conf"), "[global]\n");
        ServeConfig c = ServeConfigLoader.parse("c.json", config("{ \"type\": \"rbd\", \"pool\": \"rbd\", \"image\": "
                + "\"img0\", \"conf\": \"" + conf + "\", \"id\": \"iscsi\", \"op_timeout\": 5, \"queue_depth\": 64 }"));
        ServeConfig.Backstore b = c.backstores().get("d");
        assertThat(b.pool()).isEqualTo("rbd");
        assertThat(b.image()).isEqualTo("img0");
        assertThat(b.conf()).isEqualTo(conf.toString());
        assertThat(b.id()).isEqualTo("iscsi");
        assertThat(b.opTimeout()).isEqualTo(5);
        assertThat(b.sharedReservations()).as("rbd: reservations in RADOS unless said otherwise").isTrue();
    }

    /** Issue 16 item 2: "reservations" says where an rbd backstore keeps its PR and SPC-2 state. */
    @Test
    void reservationsAreRadosOrLocalAndOnlyForRbd() throws IOException {
        ServeConfig c = ServeConfigLoader.parse("c.json", config("{ \"type\": \"rbd\", \"pool\": \"rbd\", "
                + "\"image\": \"i\", \"reservations\": \"local\" }"));
        assertThat(c.backstores().get("d").sharedReservations()).isFalse();
        c = ServeConfigLoader.parse("c.json", config("{ \"type\": \"rbd\", \"pool\": \"rbd\", "
                + "\"image\": \"i\", \"reservations\": \"rados\" }"));
        assertThat(c.backstores().get("d").sharedReservations()).isTrue();
        assertThatThrownBy(() -> ServeConfigLoader.parse("c.json", config("{ \"type\": \"rbd\", \"pool\": \"rbd\", "
                + "\"image\": \"i\", \"reservations\": \"omap\" }")))
                .hasMessage("c.json line 3: backstores.d.reservations 'omap' is unknown: \"rados\" (shared by every"
                        + " gateway of the image, the default) or \"local\" (this gateway only)");
        assertThatThrownBy(() -> ServeConfigLoader.parse("c.json", config("{ \"type\": \"ram\", \"size\": \"1m\", "
                + "\"reservations\": \"rados\" }")))
                .hasMessage("c.json line 3: backstores.d.reservations only applies to rbd backstores (the others"
                        + " keep them in this process)");
        ServeConfig ram = ServeConfigLoader.parse("c.json", config("{ \"type\": \"ram\", \"size\": \"1m\" }"));
        assertThat(ram.backstores().get("d").sharedReservations()).isFalse();
    }

    @Test
    void missingOrWrongKeysAreNamedByFileLineAndKey(@TempDir Path dir) {
        assertThatThrownBy(() -> ServeConfigLoader.parse("c.json", config("{ \"type\": \"rbd\", \"image\": \"i\" }")))
                .hasMessage("c.json line 3: backstores.d.pool is required for an rbd backstore (e.g. \"rbd\")");
        assertThatThrownBy(() -> ServeConfigLoader.parse("c.json", config("{ \"type\": \"rbd\", \"pool\": \"rbd\" }")))
                .hasMessage("c.json line 3: backstores.d.image is required for an rbd backstore (the RBD image name)");
        Path missing = dir.resolve("nope.conf");
        assertThatThrownBy(() -> ServeConfigLoader.parse("c.json", config("{ \"type\": \"rbd\", \"pool\": \"rbd\", "
                + "\"image\": \"i\", \"conf\": \"" + missing + "\" }")))
                .hasMessage("c.json line 3: backstores.d.conf " + missing
                        + " is not a readable file (the cluster's ceph.conf)");
        assertThatThrownBy(() -> ServeConfigLoader.parse("c.json", config("{ \"type\": \"rbd\", \"pool\": \"rbd\", "
                + "\"image\": \"i\", \"size\": \"1g\" }")))
                .hasMessage("c.json line 3: backstores.d.size does not apply to rbd backstores: the size is the "
                        + "image's (rbd resize)");
        assertThatThrownBy(() -> ServeConfigLoader.parse("c.json", config("{ \"type\": \"rbd\", \"pool\": \"rbd\", "
                + "\"image\": \"i\", \"op_timeout\": -1 }")))
                .hasMessage("c.json line 3: backstores.d.op_timeout -1 is out of range (0 = none, or 1..3600 seconds)");
        assertThatThrownBy(() -> ServeConfigLoader.parse("c.json", config("{ \"type\": \"ram\", \"size\": \"1m\", "
                + "\"pool\": \"rbd\" }")))
                .hasMessage("c.json line 3: backstores.d.pool only applies to rbd backstores");
    }
}
