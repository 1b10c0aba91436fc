package io.hostwide.cli.serve;

import io.hostwide.cli.Main;
import io.hostwide.management.Admin;
import io.hostwide.management.AdminSocket;
import io.hostwide.management.TargetAssembly;
import io.hostwide.management.api.JsonRpc;
import io.hostwide.management.api.ManagementApi;
import io.hostwide.management.config.ServeConfigLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import com.fasterxml.jackson.databind.JsonNode;
import io.hostwide.management.util.Json;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code hostwide admin} verbs over the API: output, and exit status 0 done, 1 refused (reason printed), 2 usage. */
class AdminVerbsTest {
    private static final String T = "iqn.2026-12.io.hostwide:verbs";

    record Run(int status, String out, String err) {
    }

    private static Run admin(Path sock, String... args) {
        CommandLine cl = Main.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        List<String> all = new ArrayList<>(List.of("admin", "--socket", sock.toString()));
        all.addAll(List.of(args));
        return new Run(cl.execute(all.toArray(String[]::new)), out.toString(), err.toString());
    }

    @Test
    void backstoreResizeTakesAllowShrinkAsAFlagOrABoolean(@TempDir Path dir) throws Exception {
        try (TargetAssembly a = TargetAssembly.build(ServeConfigLoader.parse("t", "{}"),
                List.of(new InetSocketAddress("127.0.0.1", 0)), null)) {
            Admin admin = new Admin(a, null, null);
            JsonRpc rpc = new JsonRpc(new ManagementApi(a, admin, null));
            try (AdminSocket s = AdminSocket.open(dir.resolve("a.sock"), admin::handle, rpc::handle)) {
                Path sock = s.path();
                assertThat(admin(sock, "backstore", "create", "n0", "--type", "null", "--size", "4m").status()).isZero();
                // a null backstore shrinks without it (nothing to lose); an rbd image only with it (RbdServeTest)
                Run flag = admin(sock, "backstore", "resize", "n0", "2m", "--allow-shrink");
                assertThat(flag.status()).as(flag.err()).isZero();
                assertThat(flag.out()).contains("\"size_bytes\" : 2097152");
                Run bool = admin(sock, "backstore", "resize", "n0", "1m", "--allow-shrink", "true");
                assertThat(bool.status()).as(bool.err()).isZero();
                assertThat(bool.out()).contains("\"size_bytes\" : 1048576");
                assertThat(admin(sock, "backstore", "resize", "n0", "1m", "--allow-shrink", "maybe").status())
                        .isEqualTo(2);
            }
        }
    }

    @Test
    void verbsCallTheApi(@TempDir Path dir) throws Exception {
        try (TargetAssembly a = TargetAssembly.build(ServeConfigLoader.parse("t", "{}"),
                List.of(new InetSocketAddress("127.0.0.1", 0)), null)) {
            Admin admin = new Admin(a, null, null);
            JsonRpc rpc = new JsonRpc(new ManagementApi(a, admin, null));
            try (AdminSocket s = AdminSocket.open(dir.resolve("a.sock"), admin::handle, rpc::handle)) {
                Path sock = s.path();
                Run r = admin(sock, "backstore", "create", "ram0", "--type", "ram", "--size", "1m", "--block-size", "4096");
                assertThat(r.status()).as(r.err()).isZero();
                assertThat(r.out()).contains("\"created\" : true").contains("\"size_bytes\" : 1048576");
                assertThat(admin(sock, "target", "create", T, "--generate-node-acls").status()).isZero();
                Run lun = admin(sock, "lun", "create", T, "ram0");
                assertThat(lun.out()).contains("\"lun\" : 0");
                assertThat(a.core().target(T).port(1).lun(0).device().name()).isEqualTo("ram0");
                assertThat(admin(sock, "acl", "map", T, "iqn.1994-05.com.example:x", "0", "--read-only").err())
                        .startsWith("hostwide admin: not_found: ");

                Run refused = admin(sock, "backstore", "delete", "ram0");
                assertThat(refused.status()).isEqualTo(1);
                assertThat(refused.err()).startsWith("hostwide admin: in_use: backstore ram0 is exported");

                Run raw = admin(sock, "--json", "call", "target_list");
                assertThat(raw.status()).isZero();
                assertThat(raw.out()).contains("\"jsonrpc\" : \"2.0\"").contains(T);

                assertThat(admin(sock, "call", "target_list", "{\"bogus\":1}").status()).isEqualTo(2);
                assertThat(admin(sock, "call", "target_list", "{not json").status()).isEqualTo(2);
                assertThat(admin(sock, "lun", "create", T).status()).isEqualTo(2);
                assertThat(admin(sock, "lun", "frob", T).err()).contains("unknown command 'lun frob'");
                assertThat(admin(sock, "lun", "delete", T, "zero").err()).contains("is not an integer");
                Run status = admin(sock, "status");
                assertThat(status.status()).isZero();
                // counts by default, the listing behind --full (at 1,000 targets it is hundreds of kilobytes)
                JsonNode summary = Json.mapper().readTree(status.out());
                assertThat(summary.path("ok").asBoolean()).isTrue();
                assertThat(summary.path("counts").toString())
                        .isEqualTo("{\"backstores\":1,\"targets\":1,\"luns\":1,\"acls\":0,\"sessions\":0}");
                assertThat(summary.has("targets")).isFalse();
                assertThat(summary.has("sessions")).isFalse();
                JsonNode full = Json.mapper().readTree(admin(sock, "status", "--full").out());
                assertThat(full.path("targets").get(0).path("name").asText()).isEqualTo(T);
                assertThat(full.path("targets").get(0).path("luns").get(0).path("backstore").asText()).isEqualTo("ram0");
                assertThat(full.path("sessions").isArray()).isTrue();
                assertThat(admin(sock, "stats", "--full").err()).contains("--full: only with status");
                assertThat(admin(sock, "lun", "delete", T, "0").out()).contains("\"deleted\" : true");
                assertThat(admin(sock, "backstore", "delete", "ram0").out()).contains("\"deleted\" : true");

                // portals: IP [PORT]; the server's --port option is not the portal's
                Run created = admin(sock, "portal", "create", "127.0.0.1", "0");
                assertThat(created.status()).isEqualTo(2);
                assertThat(created.err()).contains("port 0 is out of range (1..65535)");
                assertThat(admin(sock, "portal", "create", "localhost").err())
                        .contains("'localhost' is not an IP address");
                assertThat(admin(sock, "portal", "delete", "127.0.0.2", "3260").out())
                        .contains("\"deleted\" : false");
                assertThat(admin(sock, "portal", "create", "127.0.0.1", "x").err()).contains("is not an integer");
            }
        }
    }
}
