package io.hostwide.management.config;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/** A listening address, "host:port" or "[v6]:port"; port defaults to 3260 (RFC 7143 §13.1). */
public record Portal(String host, int port) {

    public static final int DEFAULT_PORT = 3260;

    public static Portal parse(String what, String text) {
        String s = text.trim();
        String host;
        String port = null;
        if (s.startsWith("[")) {
            int close = s.indexOf(']');
            if (close < 0) {
                throw new IllegalArgumentException(what + ": '" + text + "' has an unclosed '['");
            }
            host = s.substring(1, close);
            if (close + 1 < s.length()) {
                if (s.charAt(close + 1) != ':') {
                    throw new IllegalArgumentException(what + ": '" + text + "' is not [address]:port");
                }
                port = s.substring(close + 2);
            }
        } else {
            int colon = s.lastIndexOf(':');
            if (colon >= 0 && s.indexOf(':') != colon) {
                throw new IllegalArgumentException(what + ": write IPv6 addresses as [address]:port, got '" + text + "'");
            }
            host = colon < 0 ? s : s.substring(0, colon);
            port = colon < 0 ? null : s.substring(colon + 1);
        }
        if (host.isEmpty()) {
            throw new IllegalArgumentException(what + ": '" + text + "' has no address");
        }
        int p = DEFAULT_PORT;
        if (port != null) {
            try {
                p = Integer.parseInt(port);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(what + ": port '" + port + "' is not a number");
            }
            if (p < 0 || p > 65535) {
                throw new IllegalArgumentException(what + ": port " + p + " is out of range (0..65535)");
            }
        }
        return new Portal(host, p);
    }

    /**
     * An HTTP listening address ({@code --metrics}): {@code HOST:PORT}, {@code [v6]:PORT}, or a bare {@code PORT}
     * meaning loopback (127.0.0.1). The port is required: there is no iSCSI default to fall back to.
     */
    public static Portal parseHttp(String what, String text) {
        String s = text.trim();
        if (!s.isEmpty() && s.chars().allMatch(Character::isDigit)) {
            s = "127.0.0.1:" + s;
        }
        boolean hasPort = s.startsWith("[") ? s.indexOf("]:") > 0 : s.indexOf(':') > 0;
        if (!hasPort) {
            throw new IllegalArgumentException(what + ": '" + text + "' needs a port (HOST:PORT, or PORT for loopback)");
        }
        return parse(what, s);
    }

    public InetSocketAddress resolve() {
        try {
            return new InetSocketAddress(InetAddress.getByName(host), port);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("--listen: cannot resolve '" + host + "'");
        }
    }

    /** True if every address the host resolves to is a loopback address. */
    public boolean isLoopback() {
        try {
            for (InetAddress a : InetAddress.getAllByName(host)) {
                if (!a.isLoopbackAddress()) {
                    return false;
                }
            }
            return true;
        } catch (UnknownHostException e) {
            return false;
        }
    }

    @Override
    public String toString() {
        return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
    }
}
