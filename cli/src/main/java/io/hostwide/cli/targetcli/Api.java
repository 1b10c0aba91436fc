package io.hostwide.cli.targetcli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hostwide.management.AdminSocket;
import io.hostwide.management.api.JsonRpc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;

/**
 * The management API as the front end sees it: one JSON-RPC call, its result or an {@link Error} carrying the
 * server's {@code data.reason}. Calls go over the admin socket with {@code AdminSocket.call}, the client {@code
 * hostwide admin} uses; tests may answer in-process.
 */
@FunctionalInterface
interface Api {

    /** The answer line to one request line. */
    String exchange(String request) throws IOException;

    /** A refusal by the server (or a transport failure): {@code reason} is the API's machine-readable one. */
    final class Error extends RuntimeException {
        final String reason;

        Error(String reason, String message) {
            super(message);
            this.reason = reason;
        }
    }

    static ObjectNode params() {
        return JsonNodeFactory.instance.objectNode();
    }

    default JsonNode call(String method, ObjectNode params) {
        String answer;
        try {
            answer = exchange(JsonRpc.request(1, method, params == null ? null : params.toString()));
        } catch (IOException e) {
            throw new Error("io", "cannot reach hostwide serve: " + e.getMessage());
        }
        JsonNode r = JsonRpc.parse(answer);
        if (r.has("error")) {
            JsonNode e = r.get("error");
            throw new Error(e.path("data").path("reason").asText("error " + e.path("code").asInt()),
                    e.path("message").asText());
        }
        return r.path("result");
    }

    static Api socket(Path path) {
        return request -> {
            List<String> answers = AdminSocket.call(path, List.of(request));
            if (answers.isEmpty()) {
                throw new UncheckedIOException(new IOException("no answer from " + path));
            }
            return answers.get(0);
        };
    }
}
