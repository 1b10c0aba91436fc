package io.hostwide.management.api;

import io.hostwide.management.TargetAssembly;
import io.hostwide.management.config.ConfigWriter;
import io.hostwide.management.config.ServeConfig;
import io.hostwide.management.config.ServeConfigLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.assertj.core.api.Assertions.assertThat;

/** Every change is written back atomically, and a restart from the written file comes up identical. */
class PersistenceTest {
    static final String T = ManagementApiTest.T;
    static final String I = ManagementApiTest.I;

    @Test
    void everyChangeIsWrittenPrivatelyWithThreeBackupsAndRestartsIdentical(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("serve.json");
        Files.writeString(file, "{ \"backstores\": { \"a\": { \"type\": \"ram\", \"size\": \"1m\" } } }");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--")); // as an editor leaves it
        ServeConfig running;
        Object statusBefore;
        try (ApiHarness h = new ApiHarness(ServeConfigLoader.load(file), file)) {
            h.ok("backstore_create", "{\"name\":\"f\",\"type\":\"file\",\"path\":\"" + dir.resolve("f.img")
                    + "\",\"size\":\"2m\",\"write_cache\":false}");
            // the first backup is the hand-written file itself, and it holds secrets as the new file does
            assertThat(ConfigWriter.backups(file)).singleElement().satisfies(b -> assertThat(
                    PosixFilePermissions.toString(Files.getPosixFilePermissions(b))).isEqualTo("rw-------"));
            h.ok("target_create", "{\"name\":\"" + T + "\",\"alias\":\"disk\"}");
            h.ok("lun_create", "{\"target\":\"" + T + "\",\"backstore\":\"a\"}");
            h.ok("lun_create", "{\"target\":\"" + T + "\",\"backstore\":\"f\",\"lun\":3}");
            h.ok("acl_create", "{\"target\":\"" + T + "\",\"initiator\":\"" + I
                    + "\",\"luns\":[{\"lun\":3,\"mapped_lun\":0,\"read_only\":true}]}");
            h.ok("chap_set", "{\"target\":\"" + T + "\",\"user\":\"u\",\"secret\":\"twelve-chars-ok\"}");
            running = h.assembly.current();
            statusBefore = h.assembly.status().get("targets");
            assertThat(ServeConfigLoader.load(file)).isEqualTo(running);
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
            assertThat(ConfigWriter.backups(file)).hasSize(ConfigWriter.BACKUPS);
            for (Path b : ConfigWriter.backups(file)) { // the backups hold the same secrets: as private
                assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(b))).as("%s", b)
                        .isEqualTo("rw-------");
            }
            assertThat(Files.list(dir).filter(p -> p.getFileName().toString().endsWith(".tmp"))).isEmpty();
            // An identical create changes nothing, and writes nothing.
            var lastBackups = ConfigWriter.backups(file);
            h.ok("target_create", "{\"name\":\"" + T + "\",\"alias\":\"disk\"}");
            assertThat(ConfigWriter.backups(file)).isEqualTo(lastBackups);
        }
        ServeConfig reread = ServeConfigLoader.load(file);
        assertThat(reread).isEqualTo(running);
        try (TargetAssembly again = TargetAssembly.build(reread,
                java.util.List.of(new java.net.InetSocketAddress("127.0.0.1", 0)), null)) {
            assertThat(again.status().get("targets")).isEqualTo(statusBefore);
            assertThat(again.core().target(T).port(1).acl(I).mappedLuns()).singleElement()
                    .satisfies(m -> assertThat(m.readOnly()).isTrue());
        }
    }

    @Test
    void aChangeThatCannotBeWrittenIsUndone(@TempDir Path dir) {
        Path file = dir.resolve("gone").resolve("serve.json"); // its directory does not exist: the write fails
        try (ApiHarness h = new ApiHarness("{}", file)) {
            var e = h.error("target_create", "{\"name\":\"" + T + "\"}");
            assertThat(e.path("data").path("reason").asText()).isEqualTo("io_error");
            assertThat(e.get("message").asText()).contains("undone");
            assertThat(h.assembly.core().target(T)).isNull();
            assertThat(h.assembly.current().targets()).isNullOrEmpty();
        }
    }

    @Test
    void withoutConfigChangesLiveInMemoryUntilConfigSave(@TempDir Path dir) throws Exception {
        try (ApiHarness h = new ApiHarness("{}", null)) {
            h.ok("target_create", "{\"name\":\"" + T + "\"}");
            assertThat(h.error("config_save", null).path("data").path("param").asText()).isEqualTo("path");
            Path out = dir.resolve("saved.json");
            h.ok("config_save", "{\"path\":\"" + out + "\"}");
            assertThat(ServeConfigLoader.load(out)).isEqualTo(h.assembly.current());
        }
    }
}
