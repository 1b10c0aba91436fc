package io.hostwide.management.api;

import com.sun.net.httpserver.HttpExchange;

import io.hostwide.management.util.HttpEndpoint;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.security.MessageDigest;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * The management API over HTTP ({@code serve --api HOST:PORT}): JSON-RPC 2.0 requests as the body of {@code POST /},
 * answered as the admin socket answers a line, for tools that speak HTTP rather than Unix sockets (as SPDK's and
 * targetd's clients do). A bearer token ({@code Authorization: Bearer TOKEN}, from a file only the serve user can
 * read) is checked on every request when configured, and is required for any address beyond loopback: unlike the
 * admin socket, a TCP port has no file permissions to keep other users out. One thread serves calls, which the API
 * runs one at a time anyway.
 */
public final class ApiHttpServer implements AutoCloseable {
    /** Largest request body accepted: a batch of a few thousand calls. */
    static final int MAX_BODY = 1 << 20;
    /** Shortest token accepted: 128 bits as hex. */
    static final int MIN_TOKEN_CHARS = 32;

    private final HttpEndpoint http;

    private ApiHttpServer(HttpEndpoint http) {
        this.http = http;
    }

    /**
     * Binds {@code address} and answers JSON-RPC with {@code rpc} (a request's text in, the response's text out, null
     * for notifications only).
     *
     * @param token the bearer token every request must carry, or null (allowed on loopback only)
     */
    public static ApiHttpServer start(InetSocketAddress address, UnaryOperator<String> rpc, String token)
            throws IOException {
        if (token == null && !address.getAddress().isLoopbackAddress()) {
            throw new IllegalArgumentException("--api: " + address + " is beyond loopback: give --api-token-file");
        }
        byte[] expected = token == null ? null : ("Bearer " + token).getBytes(StandardCharsets.UTF_8);
        return new ApiHttpServer(HttpEndpoint.start(address, "hostwide-api-http", x -> handle(x, rpc, expected)));
    }

    /**
     * The token in {@code file}: its first line, trimmed. The file must be a regular file that only its owner can
     * read or write (like ssh's keys), and the token long enough not to be guessed.
     */
    public static String readToken(Path file) {
        try {
            if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
                throw new IllegalArgumentException("--api-token-file: " + file + " is not a regular file");
            }
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(file);
            if (perms.stream().anyMatch(p -> p.name().startsWith("GROUP") || p.name().startsWith("OTHERS"))) {
                throw new IllegalArgumentException("--api-token-file: " + file + " is readable or writable by others "
                        + "(mode " + java.nio.file.attribute.PosixFilePermissions.toString(perms) + "): chmod 600 it");
            }
            String token = Files.readAllLines(file, StandardCharsets.UTF_8).stream().findFirst().orElse("").trim();
            if (token.length() < MIN_TOKEN_CHARS || !token.chars().allMatch(c -> c > ' ' && c < 127)) {
                throw new IllegalArgumentException("--api-token-file: " + file + ": the token must be at least "
                        + MIN_TOKEN_CHARS + " printable characters without spaces (e.g. openssl rand -hex 32)");
            }
            return token;
        } catch (IOException e) {
            throw new IllegalArgumentException("--api-token-file: " + file + ": cannot read it: " + e.getMessage(), e);
        }
    }

    private static void handle(HttpExchange x, UnaryOperator<String> rpc, byte[] expected) throws IOException {
        try (x) {
            if (expected != null) {
                String auth = x.getRequestHeaders().getFirst("Authorization");
                byte[] given = auth == null ? new byte[0] : auth.getBytes(StandardCharsets.UTF_8);
                if (!MessageDigest.isEqual(given, expected)) { // constant time: the token is not guessed byte by byte
                    x.getResponseHeaders().set("WWW-Authenticate", "Bearer");
                    HttpEndpoint.reply(x, 401, "text/plain; charset=utf-8",
                            "authentication required: Authorization: Bearer TOKEN\n");
                    return;
                }
            }
            if (!x.getRequestURI().getPath().equals("/")) {
                HttpEndpoint.reply(x, 404, "text/plain; charset=utf-8",
                        "not found: POST JSON-RPC requests to /\n");
                return;
            }
            if (!x.getRequestMethod().equals("POST")) {
                x.getResponseHeaders().set("Allow", "POST");
                HttpEndpoint.reply(x, 405, "text/plain; charset=utf-8",
                        "method not allowed: POST a JSON-RPC request\n");
                return;
            }
            byte[] body;
            try (InputStream in = x.getRequestBody()) {
                body = in.readNBytes(MAX_BODY + 1);
            }
            if (body.length > MAX_BODY) {
                HttpEndpoint.reply(x, 413, "text/plain; charset=utf-8",
                        "request larger than " + MAX_BODY + " bytes\n");
                return;
            }
            String answer = rpc.apply(new String(body, StandardCharsets.UTF_8));
            if (answer == null) { // notifications only: JSON-RPC sends nothing back
                x.sendResponseHeaders(204, -1);
                return;
            }
            HttpEndpoint.reply(x, 200, "application/json", answer.endsWith("\n") ? answer : answer + "\n");
        }
    }

    public InetSocketAddress address() {
        return http.address();
    }

    @Override
    public void close() {
        http.close();
    }
}
