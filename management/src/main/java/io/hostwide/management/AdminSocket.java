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
import java.util.Map;
import java.util.Set;
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
