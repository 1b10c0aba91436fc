package io.hostwide.management;

import io.hostwide.management.config.ServeConfigLoader;
import io.hostwide.management.config.Portal;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Issue 12: --insecure, exposure without CHAP and a readable file of secrets were all quiet. */
class ServeWarningsTest {
    private static final List<Portal> LOOPBACK = List.of(new Portal("127.0.0.1", 3260));
    private static final List<Portal> ANY = List.of(new Portal("0.0.0.0", 3260));

    private static final String OPEN = """
            { "backstores": { "r": { "type": "ram", "size": "1m" } },
              "targets": [ { "name": "iqn.2026-12.io.hostwide:open", "luns": [ { "lun": 0, "backstore": "r" } ] } ] }
            """;
    private static final String CHAP = """
            { "backstores": { "r": { "type": "ram", "size": "1m" } },
              "discovery_auth": { "user": "d", "secret": "discovery-secret" },
              "targets": [ { "name": "iqn.2026-12.io.hostwide:chap", "auth": { "user": "u", "secret": "twelve-chars!" },
                             "luns": [ { "lun": 0, "backstore": "r" } ] } ] }
            """;

    @Test
    void loopbackWithoutInsecureIsQuiet() {
        assertThat(ServeWarnings.of(ServeConfigLoader.parse("c", OPEN), LOOPBACK, false, null)).isEmpty();
    }

    @Test
    void insecureIsAlwaysSaid() {
        assertThat(ServeWarnings.of(ServeConfigLoader.parse("c", OPEN), LOOPBACK, true, null))
                .containsExactly("--insecure given, but every portal is a loopback address: it changes nothing");
        assertThat(ServeWarnings.of(ServeConfigLoader.parse("c", OPEN), ANY, true, null)).containsExactly(
                "--insecure: the CHAP requirement beyond loopback is switched off",
                "targets without CHAP (iqn.2026-12.io.hostwide:open) are reachable by anyone who can connect to "
                        + "0.0.0.0:3260; set \"auth\" for them in the configuration",
                "discovery (SendTargets) on 0.0.0.0:3260 lists the targets to anyone; set \"discovery_auth\" to "
                        + "require CHAP for it");
    }

    /** A portal opened live (admin portal create, targetcli tpg1/portals create) is warned about as at startup. */
    @Test
    void portalsOpenedLiveBeyondLoopbackAreWarnedAbout() {
        assertThat(ServeWarnings.ofPortals(ServeConfigLoader.parse("c", OPEN), LOOPBACK, true)).isEmpty();
        assertThat(ServeWarnings.ofPortals(ServeConfigLoader.parse("c", OPEN), ANY, true)).containsExactly(
                "--insecure: the CHAP requirement beyond loopback is switched off",
                "targets without CHAP (iqn.2026-12.io.hostwide:open) are reachable by anyone who can connect to "
                        + "0.0.0.0:3260; set \"auth\" for them in the configuration",
                "discovery (SendTargets) on 0.0.0.0:3260 lists the targets to anyone; set \"discovery_auth\" to "
                        + "require CHAP for it");
        String chapNoDiscovery = CHAP.replace("\"discovery_auth\": { \"user\": \"d\", \"secret\": \"discovery-secret\" },", "");
        assertThat(ServeWarnings.ofPortals(ServeConfigLoader.parse("c", chapNoDiscovery), ANY, false)).containsExactly(
                "discovery (SendTargets) on 0.0.0.0:3260 lists the targets to anyone; set \"discovery_auth\" to "
                        + "require CHAP for it");
    }

    @Test
    void chapEverywhereBeyondLoopbackIsQuiet(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("serve.json"), CHAP);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        assertThat(ServeWarnings.of(ServeConfigLoader.load(file), ANY, false, file)).isEmpty();
    }

    @Test
    void aFileOfSecretsOthersCanReadIsSaid(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("serve.json"), CHAP);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        assertThat(ServeWarnings.of(ServeConfigLoader.load(file), LOOPBACK, false, file)).containsExactly(
                file + " holds CHAP secrets and can be read by other users (mode rw-r--r--); chmod 600 " + file);
        Path noSecrets = Files.writeString(dir.resolve("open.json"), OPEN);
        Files.setPosixFilePermissions(noSecrets, PosixFilePermissions.fromString("rw-r--r--"));
        assertThat(ServeWarnings.of(ServeConfigLoader.load(noSecrets), LOOPBACK, false, noSecrets)).isEmpty();
    }

    /** A target whose every ACL has CHAP of its own is not open; one ACL without, or no ACL at all, is. */
    @Test
    void aclChapCountsWhenEveryAclHasIt() {
        String acl = "{ \"initiator\": \"iqn.2026-12.io.hostwide:%s\"%s, \"luns\": [ { \"lun\": 0 } ] }";
        String auth = ", \"auth\": { \"user\": \"u\", \"secret\": \"twelve-chars-ok\" }";
        String cfg = """
                { "backstores": { "r": { "type": "ram", "size": "1m" } },
                  "targets": [ { "name": "iqn.2026-12.io.hostwide:t", "luns": [ { "lun": 0, "backstore": "r" } ],
                                 "acls": [ %s ] } ] }
                """;
        assertThat(ServeWarnings.withoutChap(ServeConfigLoader.parse("c",
                cfg.formatted(acl.formatted("a", auth) + ", " + acl.formatted("b", auth))))).isEmpty();
        assertThat(ServeWarnings.withoutChap(ServeConfigLoader.parse("c",
                cfg.formatted(acl.formatted("a", auth) + ", " + acl.formatted("b", "")))))
                .containsExactly("iqn.2026-12.io.hostwide:t");
        assertThat(ServeWarnings.withoutChap(ServeConfigLoader.parse("c", cfg.formatted(""))))
                .as("no ACL yet: the first one added would be open").containsExactly("iqn.2026-12.io.hostwide:t");
    }
}
