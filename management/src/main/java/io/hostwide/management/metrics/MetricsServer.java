package io.hostwide.management.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * The {@code /metrics} HTTP endpoint, on the JDK's own HTTP server (com.sun.net.httpserver, module jdk.httpserver):
 * the text format is a page of lines, so the Prometheus Java client would add a dependency and a second metrics
 * model for nothing. One thread serves scrapes (Prometheus scrapes every few seconds, and a scrape reads counters
 * only); anything but {@code GET}/{@code HEAD /metrics} is 404 or 405, and an error while collecting is a 500 with
 * the reason, never a half page.
 */
public final class MetricsServer implements AutoCloseable {
    /** The content type of text format 0.0.4. */
    public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final HttpServer http;
    private final ExecutorService executor;

    private MetricsServer(HttpServer http, ExecutorService executor) {
        this.http = http;
        this.executor = executor;
    }

    /** Binds {@code address} and starts serving {@code page} at /metrics. */
    public static MetricsServer start(InetSocketAddress address, Supplier<String> page) throws IOException {
        HttpServer http = HttpServer.create(address, 16);
        ExecutorService ex = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "hostwide-metrics");
            t.setDaemon(true);
            return t;
        });
        http.setExecutor(ex);
        http.createContext("/", x -> handle(x, page));
        http.start();
        return new MetricsServer(http, ex);
    }

    private static void handle(HttpExchange x, Supplier<String> page) throws IOException {
        try (x) {
            String method = x.getRequestMethod();
            if (!x.getRequestURI().getPath().equals("/metrics")) {
                reply(x, 404, "text/plain; charset=utf-8", "not found: metrics are at /metrics\n", method);
                return;
            }
            if (!method.equals("GET") && !method.equals("HEAD")) {
                x.getResponseHeaders().set("Allow", "GET, HEAD");
                reply(x, 405, "text/plain; charset=utf-8", "method not allowed: use GET\n", method);
                return;
            }
            String body;
            try {
                body = page.get();
            } catch (RuntimeException e) {
                reply(x, 500, "text/plain; charset=utf-8", "collecting metrics failed: " + e + "\n", method);
                return;
            }
            reply(x, 200, CONTENT_TYPE, body, method);
        }
    }

    private static void reply(HttpExchange x, int code, String type, String body, String method) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        x.getResponseHeaders().set("Content-Type", type);
        if (method.equals("HEAD")) {
            x.sendResponseHeaders(code, -1);
            return;
        }
        x.sendResponseHeaders(code, b.length);
        try (OutputStream out = x.getResponseBody()) {
            out.write(b);
        }
    }

    /** Where it listens (the port chosen when 0 was asked for). */
    public InetSocketAddress address() {
        return http.getAddress();
    }

    @Override
    public void close() {
        http.stop(0);
        executor.shutdownNow();
    }
}
