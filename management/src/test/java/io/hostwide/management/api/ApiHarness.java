package io.hostwide.management.api;

import com.fasterxml.jackson.databind.JsonNode;
import io.hostwide.management.Admin;
import io.hostwide.management.TargetAssembly;
import io.hostwide.management.config.ServeConfig;
import io.hostwide.management.config.ServeConfigLoader;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** A target assembly (not listening) with the API over it, driven by JSON-RPC lines as a client sends them. */
final class ApiHarness implements AutoCloseable {
    final TargetAssembly assembly;
    final JsonRpc rpc;
    final ManagementApi api;
    private int id;

    ApiHarness(String json, Path configFile) {
        this(ServeConfigLoader.parse("test", json), configFile);
    }

    ApiHarness(ServeConfig cfg, Path configFile) {
        assembly = TargetAssembly.build(cfg, List.of(new InetSocketAddress("127.0.0.1", 0)), null);
        api = new ManagementApi(assembly, new Admin(assembly, configFile, null), configFile);
        rpc = new JsonRpc(api);
    }

    /** The whole response of a request line. */
    JsonNode raw(String line) {
        String answer = rpc.handle(line);
        return answer == null ? null : JsonRpc.parse(answer);
    }

    /** A call that must succeed: its result. */
    JsonNode ok(String method, String params) {
        JsonNode r = raw(JsonRpc.request(++id, method, params));
        assertThat(r.has("error")).as("%s %s -> %s", method, params, r).isFalse();
        assertThat(r.get("id").asInt()).isEqualTo(id);
        return r.get("result");
    }

    /** A call that must fail: its error object. */
    JsonNode error(String method, String params) {
        JsonNode r = raw(JsonRpc.request(++id, method, params));
        assertThat(r.has("error")).as("%s %s -> %s", method, params, r).isTrue();
        return r.get("error");
    }

    @Override
    public void close() {
        assembly.close();
    }
}
