package io.hostwide.cli.serve;

import io.hostwide.cli.util.Json;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * The local management channel of a running {@code hostwide serve}: a Unix domain
 * socket, readable and writable by its owner only. A client sends one line (a
 * command name) and reads one JSON object back; {@code hostwide admin} is the
 * client. No secret ever crosses it.
 */
public final class AdminSocket implements AutoCloseable {

    private final Path path;
    private final ServerSocketChannel channel;
    private final Thread thread;

    private AdminSocket(Path path, ServerSocketChannel channel, Function<String, Map<String, Object>> handler) {
        this.path = path;
        this.channel = channel;
        this.thread = Thread.ofPlatform().daemon().name("hostwide-admin").start(() -> acceptLoop(handler));
    }

    /** The default socket of the server whose first portal listens on {@code port}. */
    public static Path defaultPath(int port) {
        String dir = System.getenv("XDG_RUNTIME_DIR");
        return Path.of(dir != null && !dir.isEmpty() ? dir : System.getProperty("java.io.tmpdir"),
                "hostwide-" + port + ".sock");
    }

    /** Binds {@code path}; a stale socket file (no server behind it) is replaced, a live one is an error. */
    public static AdminSocket open(Path path, Function<String, Map<String, Object>> handler) throws IOException {
        if (Files.exists(path)) {
            if (isLive(path)) {
                throw new IllegalArgumentException("--admin-socket: " + path
                        + " belongs to another running hostwide serve; choose another path");
            }
            Files.delete(path);
        }
        ServerSocketChannel ch = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        ch.bind(UnixDomainSocketAddress.of(path));
        try {
            Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-------"));
        } catch (UnsupportedOperationException ignored) {
            // Non-POSIX filesystem: the directory's permissions are all we have.
        }
        return new AdminSocket(path, ch, handler);
    }

    private static boolean isLive(Path path) {
        try (SocketChannel c = SocketChannel.open(UnixDomainSocketAddress.of(path))) {
            return c.isConnected();
        } catch (IOException e) {
            return false;
        }
    }

    public Path path() {
        return path;
    }

    private void acceptLoop(Function<String, Map<String, Object>> handler) {
        while (channel.isOpen()) {
            try (SocketChannel c = channel.accept()) {
                String command = readLine(c);
                Map<String, Object> reply;
                try {
                    reply = handler.apply(command);
                } catch (RuntimeException e) {
                    reply = new LinkedHashMap<>();
                    reply.put("ok", false);
                    reply.put("error", e.getMessage());
                }
                c.write(ByteBuffer.wrap((Json.pretty(reply) + "\n").getBytes(StandardCharsets.UTF_8)));
            } catch (IOException e) {
                if (!channel.isOpen()) {
                    return;
                }
            }
        }
    }

    private static String readLine(SocketChannel c) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(1024);
        while (buf.hasRemaining()) {
            if (c.read(buf) < 0) {
                break;
            }
            if (buf.position() > 0 && buf.get(buf.position() - 1) == '\n') {
                break;
            }
        }
        buf.flip();
        return StandardCharsets.UTF_8.decode(buf).toString().trim();
    }

    /** Client side: sends {@code command}, returns the server's JSON reply. */
    public static String request(Path path, String command) throws IOException {
        try (SocketChannel c = SocketChannel.open(UnixDomainSocketAddress.of(path))) {
            c.write(ByteBuffer.wrap((command + "\n").getBytes(StandardCharsets.UTF_8)));
            c.shutdownOutput();
            ByteBuffer buf = ByteBuffer.allocate(1 << 20);
            while (c.read(buf) >= 0 && buf.hasRemaining()) {
                // read until the server closes
            }
            buf.flip();
            return StandardCharsets.UTF_8.decode(buf).toString();
        }
    }

    @Override
    public void close() {
        try {
            channel.close();
            thread.join(1000);
        } catch (IOException ignored) {
            // Closing a listening socket only fails if it is already closed.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            try {
                Files.deleteIfExists(path);
            } catch (IOException ignored) {
                // Best effort: a stale socket file is replaced by the next serve.
            }
        }
    }
}
