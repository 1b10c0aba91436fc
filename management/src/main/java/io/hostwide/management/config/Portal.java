package io.hostwide.management.config;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/** A listening address, "host:port" or "[v6]:port"; port defaults to 3260 (RFC 7143 §13.1). */
public record Portal(String host, int port) {

    public static final int DEFAULT_PORT = 3260;
    /** Where serve listens when neither --listen nor the configuration's {@code portals} says. */
    public static final Portal DEFAULT = new Portal("127.0.0.1", DEFAULT_PORT);

    private static final Pattern IPV4 = Pattern.compile("(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})");
    private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*");

    /**
     * The portals a configuration asks for: its {@code portals}, or {@link #DEFAULT} when it has none ({@code null}).
     * An empty list is no portal at all: serve then listens nowhere until one is created (LIO's TPG whose portals
     * were all deleted).
     */
    public static List<Portal> ofConfig(ServeConfig cfg) {
        if (cfg.portals() == null) {
            return List.of(DEFAULT);
        }
        List<Portal> out = new ArrayList<>();
        for (int i = 0; i < cfg.portals().size(); i++) {
            out.add(parse("portals[" + i + "]", cfg.portals().get(i)));
        }
        return out;
    }

    /** Whether {@code host} is an IP address literal (LIO's portals are addresses, never names to look up). */
    public static boolean isAddressLiteral(String host) {
        var m = IPV4.matcher(host);
        if (m.matches()) {
            for (int i = 1; i <= 4; i++) {
                if (Integer.parseInt(m.group(i)) > 255) {
                    return false;
                }
            }
            return true;
        }
        if (!IPV6.matcher(host).matches()) {
            return false;
        }
        try {
            InetAddress.getByName(host); // a literal: parsed, never looked up
            return true;
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /** Whether this is a wildcard address (0.0.0.0, ::): every address of the host. */
    public boolean isWildcard() {
        try {
            return InetAddress.getByName(host).isAnyLocalAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

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
