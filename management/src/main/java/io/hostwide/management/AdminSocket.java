package io.hostwide.management;

import io.hostwide.management.util.Json;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The local management channel of a running {@code hostwide serve}: a Unix domain
 * socket, readable and writable by its owner only. Two protocols, told apart by a line's first character: a line
 * starting with <code>{</code> or <code>[</code> is a JSON-RPC 2.0 request (or batch) and gets one response line,
 * and the connection stays open for the next request (SPDK's rpc.py style); any other line is a one-word admin
 * command of the first protocol ({@code status}), answered with one pretty JSON object, after which the server
 * closes the connection (so existing scripts that read to the end keep working). {@code hostwide admin} is the
 * client. Each connection has its own thread, so an idle client holds up nobody.
 */
public final class AdminSocket implements AutoCloseable {

    private final Path path;
    private final ServerSocketChannel channel;
    private final Thread thread;

    /** A request line is at most this long (a batch creating hundreds of objects fits). */
    static final int MAX_LINE = 4 << 20;

    private AdminSocket(Path path, ServerSocketChannel channel, Function<String, Map<String, Object>> handler,
                        Function<String, String> rpc) {
        this.path = path;
        this.channel = channel;
        this.thread = Thread.ofPlatform().daemon().name("hostwide-admin").start(() -> acceptLoop(handler, rpc));
    }

    /**
     * The default socket of the server whose first portal listens on {@code port}: {@code hostwide-PORT.sock} in
     * {@link #privateDirectory()}. Never a predictable name in a directory others can write to: there any local
     * user could put a socket first and keep the server from starting, or answer its admin clients.
     */
    public static Path defaultPath(int port) {
        return privateDirectory().resolve("hostwide-" + port + ".sock");
    }

    /**
     * {@code $XDG_RUNTIME_DIR/hostwide} (the per-user runtime directory pam_systemd makes, mode 0700); for root
     * without it {@code /run/hostwide} (only root can create it, so nobody can take the name first); else
     * {@code <temp dir>/hostwide-<user>}. Created 0700 when missing; see {@link #preparePrivateDirectory}.
     */
    static Path privateDirectory() {
        String xdg = System.getenv("XDG_RUNTIME_DIR");
        if (xdg != null && !xdg.isEmpty()) {
            return Path.of(xdg, "hostwide");
        }
        String user = System.getProperty("user.name");
        if (user.equals("root") && Files.isDirectory(Path.of("/run")) && Files.isWritable(Path.of("/run"))) {
            return Path.of("/run/hostwide");
        }
        return Path.of(System.getProperty("java.io.tmpdir"), "hostwide-" + user);
    }

    /**
     * Makes {@code dir} ready to hold a control socket: created 0700 when missing; an existing one must be a real
     * directory (not a link) of this user, and is narrowed to 0700 if it was wider. Anything else is refused with
     * what to do about it.
     */
    static void preparePrivateDirectory(Path dir) throws IOException {
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            try {
                Files.createDirectories(dir.getParent());
                Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            } catch (FileAlreadyExistsException raced) {
                // made meanwhile (by us or someone else): checked below like any existing one
            } catch (UnsupportedOperationException nonPosix) {
                Files.createDirectories(dir);
                return;
            }
        }
        if (Files.isSymbolicLink(dir) || !Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            throw new IllegalArgumentException("admin socket directory " + dir + " is not a directory (a link or a "
                    + "file is there); remove it, or pass --admin-socket PATH");
        }
        String me = System.getProperty("user.name");
        String owner = Files.getOwner(dir, LinkOption.NOFOLLOW_LINKS).getName();
        if (!owner.equals(me)) {
            throw new IllegalArgumentException("admin socket directory " + dir + " belongs to " + owner + ", not "
                    + me + "; remove it, or pass --admin-socket PATH");
        }
        try {
            if (!Files.getPosixFilePermissions(dir, LinkOption.NOFOLLOW_LINKS).equals(PRIVATE_DIR)) {
                Files.setPosixFilePermissions(dir, PRIVATE_DIR);
            }
        } catch (UnsupportedOperationException nonPosix) {
            // nothing more to narrow on this filesystem
        }
    }

    private static final Set<PosixFilePermission> PRIVATE_DIR = PosixFilePermissions.fromString("rwx------");

    /**
     * Binds {@code path}; a stale socket file of this user (no server behind it) is replaced, a live one or one of
     * another user is an error. The default path's directory is made private first ({@link #preparePrivateDirectory}).
     */
    public static AdminSocket open(Path path, Function<String, Map<String, Object>> handler) throws IOException {
        return open(path, handler, null);
    }

    /**
     * As {@link #open(Path, Function)}, with {@code rpc} answering JSON-RPC lines (null: such lines get the old
     * protocol's "unknown command" answer).
     */
    public static AdminSocket open(Path path, Function<String, Map<String, Object>> handler,
                                   Function<String, String> rpc) throws IOException {
        if (path.getParent() != null && path.getParent().equals(privateDirectory())) {
            preparePrivateDirectory(path.getParent());
        }
        if (Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            if (isLive(path)) {
                throw new IllegalArgumentException("--admin-socket: " + path
                        + " belongs to another running hostwide serve; choose another path");
            }
            String owner = Files.getOwner(path, LinkOption.NOFOLLOW_LINKS).getName();
            if (!owner.equals(System.getProperty("user.name"))) {
                throw new IllegalArgumentException("--admin-socket: " + path + " exists and belongs to " + owner
                        + "; remove it or choose another path");
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
        return new AdminSocket(path, ch, handler, rpc);
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

    private void acceptLoop(Function<String, Map<String, Object>> handler, Function<String, String> rpc) {
        while (channel.isOpen()) {
            SocketChannel c;
            try {
                c = channel.accept();
            } catch (IOException e) {
                if (!channel.isOpen()) {
                    return;
                }
                continue;
            }
            Thread.ofVirtual().name("hostwide-admin-client").start(() -> serve(c, handler, rpc));
        }
    }

    private static void serve(SocketChannel c, Function<String, Map<String, Object>> handler,
                              Function<String, String> rpc) {
        try (c; LineReader in = new LineReader(c)) {
            for (String line = in.next(); line != null; line = in.next()) {
                String trimmed = line.trim();
                if (rpc != null && (trimmed.startsWith("{") || trimmed.startsWith("["))) {
                    String answer = rpc.apply(trimmed);
                    if (answer != null) {
                        write(c, answer + "\n");
                    }
                    continue;
                }
                Map<String, Object> reply;
                try {
                    reply = handler.apply(trimmed);
                } catch (RuntimeException e) {
                    reply = new LinkedHashMap<>();
                    reply.put("ok", false);
                    reply.put("error", e.getMessage());
                }
                write(c, Json.pretty(reply) + "\n");
                return; // the old protocol: one command per connection
            }
        } catch (LineTooLong e) {
            try {
                write(c, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":\"request line longer "
                        + "than " + MAX_LINE + " bytes\"}}\n");
            } catch (IOException ignored) {
                // the client went away; nothing to tell it
            }
        } catch (IOException e) {
            // the client went away
        }
    }

    private static void write(SocketChannel c, String text) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
        while (b.hasRemaining()) {
            c.write(b);
        }
    }

    private static final class LineTooLong extends IOException {
    }

    /** Lines of UTF-8 from a channel, each at most {@link #MAX_LINE} bytes; the last may lack its newline. */
    private static final class LineReader implements AutoCloseable {
        private final SocketChannel c;
        private final ByteBuffer buf = ByteBuffer.allocate(64 * 1024);
        private final java.io.ByteArrayOutputStream line = new java.io.ByteArrayOutputStream();
        private boolean eof;

        LineReader(SocketChannel c) {
            this.c = c;
            buf.flip();
        }

        String next() throws IOException {
            while (true) {
                while (buf.hasRemaining()) {
                    byte b = buf.get();
                    if (b == '\n') {
                        String s = line.toString(StandardCharsets.UTF_8);
                        line.reset();
                        return s;
                    }
                    if (line.size() >= MAX_LINE) {
                        throw new LineTooLong();
                    }
                    line.write(b);
                }
                if (eof) {
                    if (line.size() == 0) {
                        return null;
                    }
                    String s = line.toString(StandardCharsets.UTF_8);
                    line.reset();
                    return s;
                }
                buf.clear();
                if (c.read(buf) < 0) {
                    eof = true;
                }
                buf.flip();
            }
        }

        @Override
        public void close() {
            // the channel is closed by its owner
        }
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

    /**
     * Client side for JSON-RPC: sends each line of {@code requests} on one connection and returns one answer line
     * per request that has an id, in order.
     */
    public static List<String> call(Path path, List<String> requests) throws IOException {
        List<String> answers = new java.util.ArrayList<>();
        try (SocketChannel c = SocketChannel.open(UnixDomainSocketAddress.of(path)); LineReader in = new LineReader(c)) {
            for (String r : requests) {
                write(c, r + "\n");
                String a = in.next();
                if (a == null) {
                    throw new IOException("the server closed the connection");
                }
                answers.add(a);
            }
        }
        return answers;
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
