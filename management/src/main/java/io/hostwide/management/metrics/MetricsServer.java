package io.hostwide.management.metrics;

import com.sun.net.httpserver.HttpExchange;

import io.hostwide.management.util.HttpEndpoint;

import java.io.IOException;
import java.net.InetSocketAddress;
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

    private final HttpEndpoint http;

    private MetricsServer(HttpEndpoint http) {
        this.http = http;
    }

    /** Binds {@code address} and starts serving {@code page} at /metrics. */
    public static MetricsServer start(InetSocketAddress address, Supplier<String> page) throws IOException {
        return new MetricsServer(HttpEndpoint.start(address, "hostwide-metrics", x -> handle(x, page)));
    }

    private static void handle(HttpExchange x, Supplier<String> page) throws IOException {
        try (x) {
            String method = x.getRequestMethod();
            if (!x.getRequestURI().getPath().equals("/metrics")) {
                HttpEndpoint.reply(x, 404, "text/plain; charset=utf-8", "not found: metrics are at /metrics\n");
                return;
            }
            if (!method.equals("GET") && !method.equals("HEAD")) {
                x.getResponseHeaders().set("Allow", "GET, HEAD");
                HttpEndpoint.reply(x, 405, "text/plain; charset=utf-8", "method not allowed: use GET\n");
                return;
            }
            String body;
            try {
                body = page.get();
            } catch (RuntimeException e) {
                HttpEndpoint.reply(x, 500, "text/plain; charset=utf-8", "collecting metrics failed: " + e + "\n");
                return;
            }
            HttpEndpoint.reply(x, 200, CONTENT_TYPE, body);
        }
    }

    /** Where it listens (the port chosen when 0 was asked for). */
    public InetSocketAddress address() {
        return http.address();
    }

    @Override
    public void close() {
        http.close();
    }
}
