package io.hostwide.management;

/** A portal that cannot be opened, or portals that cannot change at all; nothing was applied. */
public final class PortalException extends RuntimeException {
    /** Why. */
    public enum Kind {
        /** Another socket holds the address: another process, or a portal of this server on an overlapping address. */
        IN_USE,
        /** The address is not one of this host's (EADDRNOTAVAIL), or cannot be bound for another reason. */
        CANNOT_BIND,
        /** serve was started with --listen: the command line fixes the portals. */
        FIXED
    }

    private final Kind kind;
    private final String address;

    PortalException(Kind kind, String address, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
        this.address = address;
    }

    public Kind kind() {
        return kind;
    }

    /** The portal concerned, HOST:PORT (null for {@link Kind#FIXED}). */
    public String address() {
        return address;
    }
}
