package io.hostwide.cli.serve;

import io.hostwide.management.TargetAssembly;
import io.hostwide.management.AdminSocket;

import io.hostwide.management.config.ServeConfig;
import io.hostwide.management.config.ServeConfigLoader;

import io.hostwide.tcm.port.MappedLun;
import io.hostwide.tcm.port.TargetPort;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ReloadTest {

    private static final String T = "iqn.2026-12.io.hostwide:t1";
    private static final String I = "iqn.1994-05.com.example:client";

    private static ServeConfig cfg(String json) {
        return ServeConfigLoader.parse("test", json);
    }

    private static final String BASE = """
            { "backstores": { "a": { "type": "ram", "size": "1m" } },
              "targets": [ { "name": "%s", "luns": [ { "lun": 0, "backstore": "a" } ] } ] }
            """.formatted(T);

    private static TargetAssembly assemble(String json) {
        return TargetAssembly.build(cfg(json), List.of(new InetSocketAddress("127.0.0.1", 0)), null);
    }

    private static TargetPort port(TargetAssembly a) {
        return a.core().target(T).port(1);
    }

    @Test
    void addsBackstoresLunsAndAclsLive() {
        try (TargetAssembly a = assemble(BASE)) {
            List<String> changes = a.reload(cfg("""
                    { "backstores": { "a": { "type": "ram", "size": "1m" }, "b": { "type": "ram", "size": "2m" } },
                      "targets": [ { "name": "%s", "luns": [ { "lun": 0, "backstore": "a" }, { "lun": 5, "backstore": "b" } ],
                                     "acls": [ { "initiator": "%s", "luns": [ { "lun": 5, "mapped_lun": 0, "read_only": true } ] } ] } ] }
                    """.formatted(T, I)));
            assertThat(changes).contains(T + ": LUN 5 = b", T + ": added ACL " + I, T + ": only listed initiators admitted");
            TargetPort p = port(a);
            assertThat(p.lun(5).device().name()).isEqualTo("b");
            assertThat(p.demoMode()).isFalse();
            List<MappedLun> m = p.acl(I).mappedLuns();
            assertThat(m).singleElement().satisfies(x -> {
                assertThat(x.mappedLun()).isZero();
                assertThat(x.lun().lunNumber()).isEqualTo(5);
                assertThat(x.readOnly()).isTrue();
            });
            // And back: ACLs gone, demo mode on, LUN 5 removed.
            List<String> back = a.reload(cfg(BASE.replace("\"a\": { \"type\": \"ram\", \"size\": \"1m\" }",
                    "\"a\": { \"type\": \"ram\", \"size\": \"1m\" }, \"b\": { \"type\": \"ram\", \"size\": \"2m\" }")));
            assertThat(back).contains(T + ": removed LUN 5 (b)", T + ": removed ACL " + I);
            assertThat(p.acl(I)).isNull();
            assertThat(p.demoMode()).isTrue();
            assertThat(a.reload(cfg(BASE.replace("\"a\": { \"type\": \"ram\", \"size\": \"1m\" }",
                    "\"a\": { \"type\": \"ram\", \"size\": \"1m\" }, \"b\": { \"type\": \"ram\", \"size\": \"2m\" }"))))
                    .isEmpty();
        }
    }

    @Test
    void restartOnlyChangesAreRefusedWholeAndChangeNothing() {
        try (TargetAssembly a = assemble(BASE)) {
            String changed = """
                    { "portals": ["127.0.0.1:3999"],
                      "backstores": { "a": { "type": "ram", "size": "2m" } },
                      "targets": [ { "name": "%s", "luns": [ { "lun": 0, "backstore": "a" }, { "lun": 1, "backstore": "a" } ] } ] }
                    """.formatted(T);
            assertThatThrownBy(() -> a.reload(cfg(changed)))
                    .hasMessageStartingWith("reload refused, nothing changed: backstores.a");
            assertThat(port(a).lun(1)).isNull();
            String limits = BASE.replaceFirst("\\{", "{ \"limits\": { \"pending_logins\": 4 },");
            assertThatThrownBy(() -> a.reload(cfg(limits)))
                    .hasMessage("reload refused, nothing changed: limits can only change with a restart");
            String metrics = BASE.replaceFirst("\\{", "{ \"metrics\": { \"listen\": \"9999\" },");
            assertThatThrownBy(() -> a.reload(cfg(metrics)))
                    .hasMessage("reload refused, nothing changed: metrics can only change with a restart");
        }
    }

    private static int freePort() throws java.io.IOException {
        try (java.net.ServerSocket ss = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            return ss.getLocalPort();
        }
    }

    /** A reload (SIGHUP, admin reload) opens and closes portals as the API does; a failed one changes nothing. */
    @Test
    void portalsChangeLiveUnlessListenFixesThem() throws Exception {
        int p1 = freePort();
        int p2 = freePort();
        String one = BASE.replaceFirst("\\{", "{ \"portals\": [\"127.0.0.1:" + p1 + "\"],");
        String two = BASE.replaceFirst("\\{", "{ \"portals\": [\"127.0.0.1:" + p1 + "\", \"127.0.0.1:" + p2 + "\"],");
        InetSocketAddress a1 = new InetSocketAddress("127.0.0.1", p1);
        InetSocketAddress a2 = new InetSocketAddress("127.0.0.1", p2);
        try (TargetAssembly a = TargetAssembly.build(cfg(one), List.of(a1), null)) {
            a.start();
            assertThat(a.reload(cfg(two))).containsExactly("portal 127.0.0.1:" + p2 + " opened");
            assertThat(a.boundAddresses()).containsExactly(a1, a2);
            // a portal opened by this reload is closed again when a later step of it fails
            String bad = two.replace("127.0.0.1:" + p2, "127.0.0.1:" + freePort())
                    .replace("\"size\": \"1m\"", "\"size\": \"1m\" }, \"f\": { \"type\": \"ram\", \"size\": \"1t\", "
                            + "\"thin\": false");
            ServeConfig badCfg = cfg(bad); // valid as a file: the RAM budget refuses it when opened, after the portal
            assertThatThrownBy(() -> a.reload(badCfg)).hasMessageContaining("backstores.f");
            assertThat(a.boundAddresses()).containsExactly(a1, a2);
            assertThat(a.reload(cfg(one))).containsExactly("portal 127.0.0.1:" + p2
                    + " closed (sessions logged in through it go on)");
            assertThat(a.boundAddresses()).containsExactly(a1);

            // a wildcard on a port this server holds on one address: refused before anything is bound
            for (String any : List.of("0.0.0.0", "[::]")) {
                String wild = BASE.replaceFirst("\\{", "{ \"portals\": [\"127.0.0.1:" + p1 + "\", \"" + any + ":"
                        + p1 + "\"],");
                assertThatThrownBy(() -> a.reload(cfg(wild))).hasMessage("cannot listen on " + any + ":" + p1
                        + ": this server's portal 127.0.0.1:" + p1 + " holds that port on one of its addresses "
                        + "(delete it first)");
            }
            assertThat(a.boundAddresses()).containsExactly(a1);

            a.fixPortals("--listen 127.0.0.1:" + p1);
            assertThatThrownBy(() -> a.reload(cfg(two))).hasMessage("portals are fixed by serve's --listen 127.0.0.1:"
                    + p1 + ": they change only with a restart (without --listen, the configuration's \"portals\" are "
                    + "used and can change live)");
            assertThat(a.boundAddresses()).containsExactly(a1);
        }
    }

    @Test
    void adminSocketAnswersStatusAndErrors() throws Exception {
        try (TargetAssembly a = assemble(BASE)) {
            a.start();
            Path dir = Files.createTempDirectory("hw-admin");
            Path sock = dir.resolve("s.sock");
            try (AdminSocket s = AdminSocket.open(sock, cmd -> {
                if (!cmd.equals("status")) {
                    throw new IllegalArgumentException("unknown admin command '" + cmd + "'");
                }
                return Map.of("ok", true, "targets", a.status(true).get("targets"));
            })) {
                assertThat(AdminSocket.request(sock, "status")).contains("\"ok\" : true").contains(T).contains("\"lun\" : 0");
                assertThat(AdminSocket.request(sock, "bogus")).contains("\"ok\" : false").contains("unknown admin command");
                assertThatThrownBy(() -> AdminSocket.open(sock, c -> Map.of())).hasMessageContaining("another running");
            }
            assertThat(sock).doesNotExist();
        }
    }
}
