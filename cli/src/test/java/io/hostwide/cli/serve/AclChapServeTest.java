package io.hostwide.cli.serve;

import io.hostwide.management.TargetAssembly;
import io.hostwide.management.config.ServeConfig;
import io.hostwide.management.config.ServeConfigLoader;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code acls[].auth}, LIO's per-node-ACL CHAP, seen by libiscsi's {@code iscsi-ls}: on a target without CHAP of its
 * own, the initiator whose ACL has credentials must prove them, and the others log in as before. (The loader
 * accepted the key from the start while login never asked for it.)
 */
class AclChapServeTest {
    private static final String CONFIG = """
            { "backstores": { "r": { "type": "ram", "size": "16m" } },
              "targets": [ { "name": "iqn.2026-12.io.hostwide:acl-chap", "luns": [ { "lun": 0, "backstore": "r" } ],
                "acls": [
                  { "initiator": "iqn.2026-12.io.hostwide:with-chap", "auth": { "user": "u1", "secret": "secret-of-u1" },
                    "luns": [ { "lun": 0 } ] },
                  { "initiator": "iqn.2026-12.io.hostwide:open", "luns": [ { "lun": 0 } ] } ] } ] }
            """;

    private static String iscsiLs(String... args) throws Exception {
        return IscsiLs.run(args);
    }

    @Test
    void anAclsOwnChapIsRequiredOfThatInitiatorOnly() throws Exception {
        ServeConfig cfg = ServeConfigLoader.parse("acl-chap.json", CONFIG);
        try (TargetAssembly a = TargetAssembly.build(cfg, List.of(new InetSocketAddress("127.0.0.1", 0)), null)) {
            a.start();
            int port = a.boundAddresses().get(0).getPort();
            String lun = "Lun:0    Type:DIRECT_ACCESS";
            assertThat(iscsiLs("-s", "-i", "iqn.2026-12.io.hostwide:with-chap", "iscsi://127.0.0.1:" + port + "/"))
                    .as("no credentials").doesNotContain(lun);
            assertThat(iscsiLs("-s", "-i", "iqn.2026-12.io.hostwide:with-chap",
                    "iscsi://u1%wrong-secret-1@127.0.0.1:" + port + "/")).as("wrong secret").doesNotContain(lun);
            assertThat(iscsiLs("-s", "-i", "iqn.2026-12.io.hostwide:with-chap",
                    "iscsi://u1%secret-of-u1@127.0.0.1:" + port + "/")).contains(lun);
            assertThat(iscsiLs("-s", "-i", "iqn.2026-12.io.hostwide:open", "iscsi://127.0.0.1:" + port + "/"))
                    .as("an ACL without credentials: the target's policy, none").contains(lun);
        }
    }
}
