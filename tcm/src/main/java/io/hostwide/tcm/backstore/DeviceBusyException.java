package io.hostwide.tcm.backstore;

import java.io.IOException;

/** A block device that cannot be exported because something else holds it: mounted, or claimed exclusively. */
public final class DeviceBusyException extends IOException {
    public DeviceBusyException(String message) {
        super(message);
    }
}
