package io.hostwide.management.api;

import io.hostwide.management.AdminSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The admin socket carries JSON-RPC lines beside the old one-word commands. */
class AdminSocketRpcTest {

    @Test
    void jsonLinesGetOneAnswerEachOnOneConnectionAndOldCommandsStillWork(@TempDir Path dir) throws Exception {
        try (ApiHarness h = new ApiHarness("{}", null);
             AdminSocket s = AdminSocket.open(dir.resolve("a.sock"), cmd -> Map.of("ok", true, "said", cmd),
                     h.rpc::handle)) {
            List<String> answers = AdminSocket.call(s.path(), List.of(
                    JsonRpc.request(1, "target_create", "{\"name\":\"" + ManagementApiTest.T + "\"}"),
                    "{\"jsonrpc\":\"2.0\",", // malformed: answered, and the connection goes on
                    JsonRpc.request(2, "target_list", null)));
            assertThat(answers).hasSize(3);
            assertThat(JsonRpc.parse(answers.get(0)).path("result").path("created").asBoolean()).isTrue();
            assertThat(JsonRpc.parse(answers.get(1)).path("error").path("code").asInt()).isEqualTo(-32700);
            assertThat(JsonRpc.parse(answers.get(2)).path("result")).hasSize(1);
            assertThat(answers).allSatisfy(a -> assertThat(a).doesNotContain("\n"));
            assertThat(AdminSocket.request(s.path(), "status")).contains("\"said\" : \"status\"");
        }
    }
}
