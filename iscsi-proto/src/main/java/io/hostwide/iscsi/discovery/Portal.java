package io.hostwide.iscsi.discovery;

/**
 * A network portal of a target portal group, RFC 7143 §4.4.1 (portal groups) and its TargetAddress form (§13.8):
 * {@code domainname[:port][,portal-group-tag]}, IPv6 literals in brackets.
 */
public record Portal(String host, int port, int portalGroupTag) {
    public Portal {
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port out of range: " + port);
        }
        if (portalGroupTag < 0 || portalGroupTag > 65535) {
            throw new IllegalArgumentException("portal group tag out of range: " + portalGroupTag);
        }
    }

    /** The TargetAddress value, RFC 7143 §13.8. */
    public String targetAddress() {
        String h = host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host;
        return h + ":" + port + "," + portalGroupTag;
    }
}
