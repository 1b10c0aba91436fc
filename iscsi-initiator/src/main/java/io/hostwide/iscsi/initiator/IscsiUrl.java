package io.hostwide.iscsi.initiator;

/**
 * An iSCSI URL, {@code iscsi://HOST[:PORT]/TARGET-IQN/LUN} (the libiscsi form, RFC 4173 style host and port; the
 * LUN is decimal). IPv6 hosts go in brackets. Credentials are never part of the URL here: they are separate knobs,
 * so the URL can be printed. A portal URL ({@link #parsePortal}) has a null target name.
 */
public record IscsiUrl(String host, int port, String targetName, int lun) {
    /** The well-known iSCSI port, RFC 7143 §13.3 (IANA "iscsi-target"). */
    public static final int DEFAULT_PORT = 3260;

    /** Parses a URL; a malformed one is an IllegalArgumentException saying which part is wrong. */
    public static IscsiUrl parse(String url) {
        String rest = stripScheme(url, "iscsi://HOST[:PORT]/IQN/LUN");
        int slash = rest.indexOf('/');
        if (slash <= 0) {
            throw new IllegalArgumentException("url: missing HOST or /IQN/LUN in '" + url + "'");
        }
        IscsiUrl portal = hostPort(rest.substring(0, slash), url);
        String path = rest.substring(slash + 1);
        int lastSlash = path.lastIndexOf('/');
        if (lastSlash <= 0 || lastSlash == path.length() - 1) {
            throw new IllegalArgumentException("url: expected /IQN/LUN after the host in '" + url + "'");
        }
        String target = path.substring(0, lastSlash);
        int lun = number(path.substring(lastSlash + 1), "LUN", 0, 16383, url);
        if (target.length() > 223 || target.contains("/")) {   // RFC 7143 §4.2.7.1: names are at most 223 bytes
            throw new IllegalArgumentException("url: bad target name '" + target + "'");
        }
        return new IscsiUrl(portal.host, portal.port, target, lun);
    }

    /**
     * Parses a portal, {@code iscsi://HOST[:PORT][/]}, the address a discovery session goes to (RFC 7143 §4.4.1):
     * the result has no target name ({@link #isPortal()}) and LUN 0.
     */
    public static IscsiUrl parsePortal(String url) {
        String rest = stripScheme(url, "iscsi://HOST[:PORT]");
        if (rest.endsWith("/")) {
            rest = rest.substring(0, rest.length() - 1);
        }
        if (rest.contains("/")) {
            throw new IllegalArgumentException("url: a portal is iscsi://HOST[:PORT] without /IQN/LUN, got '"
                    + url + "'");
        }
        return hostPort(rest, url);
    }

    /** True for a portal URL (no target name), as {@link #parsePortal} returns. */
    public boolean isPortal() {
        return targetName == null;
    }

    /** The same portal with a target and LUN. */
    public IscsiUrl withTarget(String target, int lun) {
        return new IscsiUrl(host, port, target, lun);
    }

    private static String stripScheme(String url, String form) {
        if (url == null || !url.startsWith("iscsi://")) {
            throw new IllegalArgumentException("url must look like " + form + ", got '" + url + "'");
        }
        String rest = url.substring("iscsi://".length());
        if (rest.contains("@")) {
            throw new IllegalArgumentException("url: put CHAP credentials in user=/secret=, not in the URL");
        }
        return rest;
    }

    /** {@code HOST[:PORT]} or {@code [IPv6][:PORT]} as a portal URL. */
    private static IscsiUrl hostPort(String hostPort, String url) {
        String host;
        int port = DEFAULT_PORT;
        String portText = null;
        if (hostPort.startsWith("[")) {
            int close = hostPort.indexOf(']');
            if (close < 0) {
                throw new IllegalArgumentException("url: unterminated [IPv6] host in '" + url + "'");
            }
            host = hostPort.substring(1, close);
            if (close + 1 < hostPort.length()) {
                if (hostPort.charAt(close + 1) != ':') {
                    throw new IllegalArgumentException("url: junk after ] in '" + url + "'");
                }
                portText = hostPort.substring(close + 2);
            }
        } else {
            int colon = hostPort.lastIndexOf(':');
            host = colon < 0 ? hostPort : hostPort.substring(0, colon);
            portText = colon < 0 ? null : hostPort.substring(colon + 1);
        }
        if (host.isEmpty()) {
            throw new IllegalArgumentException("url: empty HOST in '" + url + "'");
        }
        if (portText != null) {
            port = number(portText, "PORT", 1, 65535, url);
        }
        return new IscsiUrl(host, port, null, 0);
    }

    private static int number(String s, String what, int min, int max, String url) {
        try {
            int v = Integer.parseInt(s);
            if (v >= min && v <= max) {
                return v;
            }
        } catch (NumberFormatException e) {
            // fall through to the message below
        }
        throw new IllegalArgumentException("url: " + what + " must be " + min + ".." + max + ", got '" + s
                + "' in '" + url + "'");
    }

    @Override
    public String toString() {
        String h = host.contains(":") ? "[" + host + "]" : host;
        return "iscsi://" + h + ":" + port + (isPortal() ? "" : "/" + targetName + "/" + lun);
    }
}
