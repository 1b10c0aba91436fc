package io.hostwide.management.api;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The management API over HTTP: POST / with JSON-RPC, a bearer token when configured, refusals otherwise. */
class ApiHttpServerTest {
    private static final String TOKEN = "0123456789abcdef0123456789abcdef";
    private final HttpClient client = HttpClient.newHttpClient();

    private HttpResponse<String> send(ApiHttpServer s, String method, String path, String body, String auth)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.address().getPort() + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (auth != null) {
            b.header("Authorization", auth);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void postedRequestsAreAnsweredAndOnlyWithTheToken() throws Exception {
        try (ApiHttpServer s = ApiHttpServer.start(new InetSocketAddress("127.0.0.1", 0),
                req -> req.contains("\"id\"") ? "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"" + req.length() + "\"}"
                        : null, TOKEN)) {
            String call = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"status\"}";
            HttpResponse<String> ok = send(s, "POST", "/", call, "Bearer " + TOKEN);
            assertThat(ok.statusCode()).isEqualTo(200);
            assertThat(ok.headers().firstValue("Content-Type")).contains("application/json");
            assertThat(ok.body()).isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"" + call.length() + "\"}\n");
            assertThat(send(s, "POST", "/", "{\"jsonrpc\":\"2.0\",\"method\":\"status\"}", "Bearer " + TOKEN)
                    .statusCode()).as("a notification has no answer").isEqualTo(204);
            HttpResponse<String> none = send(s, "POST", "/", call, null);
            assertThat(none.statusCode()).isEqualTo(401);
            assertThat(none.headers().firstValue("WWW-Authenticate")).contains("Bearer");
            assertThat(send(s, "POST", "/", call, "Bearer " + TOKEN.replace('f', 'e')).statusCode()).isEqualTo(401);
            assertThat(send(s, "GET", "/", null, "Bearer " + TOKEN).statusCode()).isEqualTo(405);
            assertThat(send(s, "POST", "/x", call, "Bearer " + TOKEN).statusCode()).isEqualTo(404);
            assertThat(send(s, "POST", "/", "x".repeat(ApiHttpServer.MAX_BODY + 1), "Bearer " + TOKEN).statusCode())
                    .isEqualTo(413);
        }
    }

    @Test
    void beyondLoopbackATokenIsRequired() {
        assertThatThrownBy(() -> ApiHttpServer.start(new InetSocketAddress("0.0.0.0", 0), r -> r, null))
                .hasMessageContaining("beyond loopback: give --api-token-file");
    }

    @Test
    void theTokenFileMustBePrivateAndTheTokenLong(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("token");
        Files.writeString(f, TOKEN + "\n");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-r--r--"));
        assertThatThrownBy(() -> ApiHttpServer.readToken(f)).hasMessageContaining("readable or writable by others")
                .hasMessageContaining("chmod 600");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
        assertThat(ApiHttpServer.readToken(f)).isEqualTo(TOKEN);
        Files.writeString(f, "short\n");
        assertThatThrownBy(() -> ApiHttpServer.readToken(f)).hasMessageContaining("at least 32");
        assertThatThrownBy(() -> ApiHttpServer.readToken(dir)).hasMessageContaining("not a regular file");
    }
}
