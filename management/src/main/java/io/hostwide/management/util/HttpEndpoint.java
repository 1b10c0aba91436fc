package io.hostwide.management.util;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * One of serve's small HTTP listeners (metrics, the management API) on the JDK's own server (module
 * jdk.httpserver): one daemon thread serves every request, which is all a scrape every few seconds or an API whose
 * calls run one at a time need, and a listener that stops never keeps the JVM alive.
 */
public final class HttpEndpoint implements AutoCloseable {
    private final HttpServer http;
    private final ExecutorService executor;

    private HttpEndpoint(HttpServer http, ExecutorService executor) {
        this.http = http;
        this.executor = executor;
    }

    /** Binds {@code address} and serves every path with {@code handler} on a thread named {@code thread}. */
    public static HttpEndpoint start(InetSocketAddress address, String thread, HttpHandler handler)
            throws IOException {
        HttpServer http = HttpServer.create(address, 16);
        ExecutorService ex = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, thread);
            t.setDaemon(true);
            return t;
        });
        http.setExecutor(ex);
        http.createContext("/", handler);
        http.start();
        return new HttpEndpoint(http, ex);
    }

    /** Sends {@code body} (UTF-8) with {@code code} and {@code type}; for HEAD, the headers only. */
    public static void reply(HttpExchange x, int code, String type, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        x.getResponseHeaders().set("Content-Type", type);
        if (x.getRequestMethod().equals("HEAD")) {
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
