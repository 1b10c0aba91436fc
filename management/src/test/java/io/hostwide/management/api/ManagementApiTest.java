package io.hostwide.management.api;

import com.fasterxml.jackson.databind.JsonNode;
import io.hostwide.management.config.ServeConfig;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.port.TargetPort;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Each method, its idempotency and its errors with their reasons. */
class ManagementApiTest {
    static final String T = "iqn.2026-12.io.hostwide:t1";
    static final String I = "iqn.1994-05.com.example:client";
    static final String EMPTY = "{}";

    private static void assertReason(JsonNode error, int code, String reason) {
        assertThat(error.get("code").asInt()).as(error.toString()).isEqualTo(code);
        assertThat(error.path("data").path("reason").asText()).as(error.toString()).isEqualTo(reason);
    }

    @Test
    void backstoreCreateIsIdempotentAndAnotherDefinitionIsExists() {
        try (ApiHarness h = new ApiHarness(EMPTY, null)) {
            JsonNode r = h.ok("backstore_create", "{\"name\":\"ram0\",\"type\":\"ram\",\"size\":\"1m\"}");
            assertThat(r.get("created").asBoolean()).isTrue();
            assertThat(r.path("backstore").path("size_bytes").asLong()).isEqualTo(1 << 20);
            assertThat(h.assembly.core().device("ram0")).isNotNull();
            assertThat(h.ok("backstore_create", "{\"name\":\"ram0\",\"type\":\"ram\",\"size\":\"1m\"}")
                    .get("created").asBoolean()).isFalse();
            JsonNode e = h.error("backstore_create", "{\"name\":\"ram0\",\"type\":\"ram\",\"size\":\"2m\"}");
            assertReason(e, -32001, "exists");
            assertThat(e.path("data").path("existing").path("size").asText()).isEqualTo("1m");
            assertThat(h.ok("backstore_list", null)).hasSize(1);
            assertThat(h.ok("backstore_get", "{\"name\":\"ram0\"}").get("type").asText()).isEqualTo("ram");
            assertReason(h.error("backstore_get", "{\"name\":\"nope\"}"), -32002, "not_found");
            assertThat(h.ok("backstore_delete", "{\"name\":\"ram0\"}").get("deleted").asBoolean()).isTrue();
            assertThat(h.assembly.core().device("ram0")).isNull();
            assertThat(h.ok("backstore_delete", "{\"name\":\"ram0\"}").get("deleted").asBoolean()).isFalse();
        }
    }

    @Test
    void badValuesAreInvalidAndNameTheKey() {
        try (ApiHarness h = new ApiHarness(EMPTY, null)) {
            JsonNode e = h.error("backstore_create", "{\"name\":\"x\",\"type\":\"tape\",\"size\":\"1m\"}");
            assertReason(e, -32005, "invalid");
            assertThat(e.get("message").asText()).contains("backstores.x.type").contains("tape");
            assertReason(h.error("target_create", "{\"name\":\"not-an-iqn\"}"), -32005, "invalid");
            assertThat(h.assembly.current().targets()).isNullOrEmpty();
        }
    }

    @Test
    void targetsLunsAndAclsBehaveAsLio() {
        try (ApiHarness h = new ApiHarness(EMPTY, null)) {
            h.ok("backstore_create", "{\"name\":\"a\",\"type\":\"ram\",\"size\":\"1m\"}");
            h.ok("backstore_create", "{\"name\":\"b\",\"type\":\"null\",\"size\":\"1m\"}");
            JsonNode t = h.ok("target_create", "{\"name\":\"" + T + "\"}");
            assertThat(t.get("created").asBoolean()).isTrue();
            TargetPort port = h.assembly.core().target(T).port(1);
            assertThat(port.admits(I)).as("LIO: no ACL, no generate_node_acls -> nobody").isFalse();
            assertThat(h.ok("target_create", "{\"name\":\"" + T + "\"}").get("created").asBoolean()).isFalse();
            assertReason(h.error("target_create", "{\"name\":\"" + T + "\",\"alias\":\"other\"}"), -32001, "exists");

            assertThat(h.ok("lun_create", "{\"target\":\"" + T + "\",\"backstore\":\"a\"}").get("lun").asInt()).isZero();
            JsonNode again = h.ok("lun_create", "{\"target\":\"" + T + "\",\"backstore\":\"a\"}");
            assertThat(again.get("created").asBoolean()).isFalse();
            assertThat(again.get("lun").asInt()).isZero();
            assertReason(h.error("lun_create", "{\"target\":\"" + T + "\",\"backstore\":\"b\",\"lun\":0}"),
                    -32004, "conflict");
            assertThat(h.ok("lun_create", "{\"target\":\"" + T + "\",\"backstore\":\"b\"}").get("lun").asInt()).isEqualTo(1);
            assertReason(h.error("lun_create", "{\"target\":\"iqn.2026-12.io.hostwide:none\",\"backstore\":\"a\"}"),
                    -32002, "not_found");
            assertReason(h.error("backstore_delete", "{\"name\":\"a\"}"), -32003, "in_use");

            JsonNode acl = h.ok("acl_create", "{\"target\":\"" + T + "\",\"initiator\":\"" + I + "\"}");
            assertThat(acl.path("acl").path("mapped_luns")).as("auto_add_mapped_luns").hasSize(2);
            assertThat(port.admits(I)).isTrue();
            assertThat(port.acl(I).mappedLuns()).hasSize(2);
            assertThat(h.ok("acl_create", "{\"target\":\"" + T + "\",\"initiator\":\"" + I + "\"}")
                    .get("created").asBoolean()).isFalse();
            assertReason(h.error("acl_create", "{\"target\":\"" + T + "\",\"initiator\":\"" + I
                    + "\",\"luns\":[{\"lun\":0}]}"), -32001, "exists");
            assertReason(h.error("acl_map_lun", "{\"target\":\"" + T + "\",\"initiator\":\"" + I
                    + "\",\"lun\":0,\"mapped_lun\":1}"), -32004, "conflict");
            assertThat(h.ok("acl_unmap_lun", "{\"target\":\"" + T + "\",\"initiator\":\"" + I + "\",\"mapped_lun\":1}")
                    .get("deleted").asBoolean()).isTrue();
            assertThat(h.ok("acl_map_lun", "{\"target\":\"" + T + "\",\"initiator\":\"" + I
                    + "\",\"lun\":1,\"mapped_lun\":7,\"read_only\":true}").get("created").asBoolean()).isTrue();
            assertThat(port.acl(I).mappedLuns()).anySatisfy(m -> {
                assertThat(m.mappedLun()).isEqualTo(7);
                assertThat(m.readOnly()).isTrue();
            });

            // A LUN's delete takes its ACL mappings with it (LIO), and is idempotent.
            assertThat(h.ok("lun_delete", "{\"target\":\"" + T + "\",\"lun\":1}").get("deleted").asBoolean()).isTrue();
            assertThat(port.lun(1)).isNull();
            assertThat(port.acl(I).mappedLuns()).singleElement().satisfies(m -> assertThat(m.mappedLun()).isZero());
            assertThat(h.ok("lun_delete", "{\"target\":\"" + T + "\",\"lun\":1}").get("deleted").asBoolean()).isFalse();
            assertThat(h.ok("lun_list", "{\"target\":\"" + T + "\"}")).hasSize(1);
            assertThat(h.ok("acl_list", "{\"target\":\"" + T + "\"}")).hasSize(1);
            assertThat(h.ok("target_get", "{\"name\":\"" + T + "\"}").path("acls").get(0).path("initiator").asText())
                    .isEqualTo(I);

            assertThat(h.ok("acl_delete", "{\"target\":\"" + T + "\",\"initiator\":\"" + I + "\"}")
                    .get("deleted").asBoolean()).isTrue();
            assertThat(port.admits(I)).isFalse();
            h.ok("target_set_attributes", "{\"name\":\"" + T + "\",\"generate_node_acls\":true}");
            assertThat(port.admits(I)).isTrue();

            assertThat(h.ok("target_list", null)).singleElement()
                    .satisfies(x -> assertThat(x.get("luns").asInt()).isEqualTo(1));
            assertThat(h.ok("target_delete", "{\"name\":\"" + T + "\"}").get("deleted").asBoolean()).isTrue();
            assertThat(h.assembly.core().target(T)).isNull();
            assertThat(h.ok("target_delete", "{\"name\":\"" + T + "\"}").get("deleted").asBoolean()).isFalse();
            assertThat(h.ok("backstore_delete", "{\"name\":\"a\"}").get("deleted").asBoolean()).as("no longer in use")
                    .isTrue();
        }
    }

    @Test
    void chapIsSetOnTargetsAclsAndDiscovery() {
        try (ApiHarness h = new ApiHarness(EMPTY, null)) {
            h.ok("target_create", "{\"name\":\"" + T + "\"}");
            String chap = "{\"target\":\"" + T + "\",\"user\":\"u\",\"secret\":\"twelve-chars-ok\"}";
            assertThat(h.ok("chap_set", chap).get("changed").asBoolean()).isTrue();
            assertThat(h.ok("chap_set", chap).get("changed").asBoolean()).isFalse();
            assertThat(h.assembly.current().targets().get(0).auth().user()).isEqualTo("u");
            assertReason(h.error("chap_set", "{\"target\":\"" + T + "\",\"user\":\"u\",\"secret\":\"short\"}"),
                    -32005, "invalid");
            h.ok("chap_set", "{\"user\":\"disc\",\"secret\":\"discovery-secret\"}");
            assertThat(h.assembly.current().discoveryAuth().user()).isEqualTo("disc");
            String aclChap = "{\"target\":\"" + T + "\",\"initiator\":\"" + I
                    + "\",\"user\":\"u2\",\"secret\":\"twelve-chars-ok\"}";
            assertReason(h.error("chap_set", aclChap), -32002, "not_found"); // no ACL for I yet
            h.ok("acl_create", "{\"target\":\"" + T + "\",\"initiator\":\"" + I + "\"}");
            assertThat(h.ok("chap_set", aclChap).get("changed").asBoolean()).isTrue();
            assertThat(h.assembly.current().targets().get(0).acls().get(0).auth().user()).isEqualTo("u2");
            assertThat(h.ok("chap_clear", "{\"target\":\"" + T + "\",\"initiator\":\"" + I + "\"}")
                    .get("changed").asBoolean()).isTrue();
            assertThat(h.assembly.current().targets().get(0).acls().get(0).auth()).isNull();
            assertThat(h.ok("chap_set", aclChap).get("changed").asBoolean()).isTrue();
            JsonNode cfg = h.ok("config_get", null);
            assertThat(cfg.toString()).doesNotContain("twelve-chars-ok").contains("********");
            assertThat(h.ok("config_get", "{\"include_secrets\":true}").toString()).contains("twelve-chars-ok");
            assertThat(h.ok("chap_clear", "{\"target\":\"" + T + "\"}").get("changed").asBoolean()).isTrue();
            assertThat(h.assembly.current().targets().get(0).auth()).isNull();
        }
    }

    @Test
    void beyondLoopbackATargetWithoutChapIsRefusedSoServeStillRestarts() {
        try (ApiHarness h = new ApiHarness(EMPTY, null)) {
            var exposed = java.util.List.of(io.hostwide.management.config.Portal.parse("--listen", "192.0.2.1:3260"));
            h.api.policy(next -> io.hostwide.management.ServeWarnings.refuseOpenExposure(next, exposed, false));
            JsonNode e = h.error("target_create", "{\"name\":\"" + T + "\"}");
            assertReason(e, -32005, "invalid");
            assertThat(e.get("message").asText()).contains("no CHAP");
            assertThat(h.assembly.core().target(T)).isNull();
            assertThat(h.ok("target_create", "{\"name\":\"" + T + "\",\"user\":\"u\",\"secret\":\"twelve-chars-ok\"}")
                    .get("created").asBoolean()).isTrue();
            assertReason(h.error("chap_clear", "{\"target\":\"" + T + "\"}"), -32005, "invalid");
            assertThat(h.assembly.current().targets().get(0).auth()).isNotNull();
        }
    }

    @Test
    void resizeRaisesCapacityDataHasChangedOnEveryNexus() {
        try (ApiHarness h = new ApiHarness(EMPTY, null)) {
            h.ok("backstore_create", "{\"name\":\"n\",\"type\":\"null\",\"size\":\"1m\"}");
            h.ok("target_create", "{\"name\":\"" + T + "\",\"generate_node_acls\":true}");
            h.ok("lun_create", "{\"target\":\"" + T + "\",\"backstore\":\"n\"}");
            CoreSessions s = new CoreSessions(h.assembly.core());
            var nexus1 = s.open(T, I);
            var nexus2 = s.open(T, "iqn.1994-05.com.example:other");
            JsonNode r = h.ok("backstore_resize", "{\"name\":\"n\",\"size\":\"2m\"}");
            assertThat(r.get("resized").asBoolean()).isTrue();
            assertThat(r.get("size_bytes").asLong()).isEqualTo(2 << 20);
            Device d = h.assembly.core().device("n");
            assertThat(d.blockCount()).isEqualTo((2 << 20) / 512);
            for (var n : java.util.List.of(nexus1, nexus2)) {
                assertThat(n.lookup(0).unitAttentions().contains(io.hostwide.scsi.spec.Asc.CAPACITY_DATA_HAS_CHANGED))
                        .isTrue();
            }
            assertThat(h.assembly.current().backstores().get("n").size()).isEqualTo("2m");
            assertThat(h.ok("backstore_resize", "{\"name\":\"n\",\"size\":\"2m\"}").get("resized").asBoolean()).isFalse();
            h.ok("backstore_create", "{\"name\":\"r\",\"type\":\"ram\",\"size\":\"1m\"}");
            assertReason(h.error("backstore_resize", "{\"name\":\"r\",\"size\":\"2m\"}"), -32007, "unsupported");
        }
    }

    @Test
    void attributesChangeLiveWhereTheDeviceCanElseRestartRequired() {
        try (ApiHarness h = new ApiHarness(EMPTY, null)) {
            h.ok("backstore_create", "{\"name\":\"a\",\"type\":\"ram\",\"size\":\"1m\"}");
            assertThat(h.ok("backstore_set_attributes", "{\"name\":\"a\",\"write_protect\":true}")
                    .get("changed").asBoolean()).isTrue();
            assertThat(h.assembly.core().device("a").writeProtected()).isTrue();
            assertReason(h.error("backstore_set_attributes", "{\"name\":\"a\",\"block_size\":4096}"),
                    -32006, "restart_required");
            assertThat(h.assembly.current().backstores().get("a").blockSize()).isNull();
        }
    }

    @Test
    void protocolErrorsUseTheStandardCodes() {
        try (ApiHarness h = new ApiHarness(EMPTY, null)) {
            JsonNode parse = h.raw("{\"jsonrpc\":\"2.0\",");
            assertThat(parse.path("error").path("code").asInt()).isEqualTo(-32700);
            assertThat(parse.get("id").isNull()).isTrue();
            assertThat(h.raw("{\"jsonrpc\":\"2.0\",\"method\":\"a\",\"method\":\"b\",\"id\":1}")
                    .path("error").path("code").asInt()).as("duplicate member").isEqualTo(-32700);
            assertThat(h.raw("{\"method\":\"status\",\"id\":1}").path("error").path("code").asInt()).isEqualTo(-32600);
            assertThat(h.raw("[]").path("error").path("code").asInt()).isEqualTo(-32600);
            JsonNode unknown = h.raw("{\"jsonrpc\":\"2.0\",\"method\":\"lun_frobnicate\",\"id\":\"x\"}");
            assertThat(unknown.path("error").path("code").asInt()).isEqualTo(-32601);
            assertThat(unknown.get("id").asText()).isEqualTo("x");
            JsonNode extra = h.error("target_list", "{\"verbose\":true}");
            assertThat(extra.get("code").asInt()).isEqualTo(-32602);
            assertThat(extra.path("data").path("param").asText()).isEqualTo("verbose");
            JsonNode missing = h.error("backstore_create", "{\"type\":\"ram\"}");
            assertThat(missing.get("code").asInt()).isEqualTo(-32602);
            assertThat(missing.path("data").path("param").asText()).isEqualTo("name");
            JsonNode type = h.error("lun_delete", "{\"target\":\"" + T + "\",\"lun\":\"zero\"}");
            assertThat(type.path("data").path("param").asText()).isEqualTo("lun");
            assertThat(h.raw("{\"jsonrpc\":\"2.0\",\"method\":\"status\",\"params\":[1],\"id\":2}")
                    .path("error").path("code").asInt()).isEqualTo(-32602);
            assertThat(h.raw("{\"jsonrpc\":\"2.0\",\"method\":\"target_create\",\"params\":{\"name\":\""
                    + T + "\"}}")).as("a notification gets no answer").isNull();
            assertThat(h.assembly.core().target(T)).as("but is carried out").isNotNull();
            JsonNode batch = h.raw("[{\"jsonrpc\":\"2.0\",\"method\":\"target_list\",\"id\":1},"
                    + "{\"jsonrpc\":\"2.0\",\"method\":\"nope\",\"id\":2}]");
            assertThat(batch).hasSize(2);
            assertThat(batch.get(1).path("error").path("code").asInt()).isEqualTo(-32601);
            assertThat(h.ok("rpc_get_methods", null).has("lun_create")).isTrue();
        }
    }
}
