package io.hostwide.tcm.spc;

import io.hostwide.tcm.lu.Device;

/** Small facts SPC and SBC handlers share. */
public final class SpcSupport {
    private SpcSupport() {}

    /** Thin provisioning is in effect: asked for by the attributes and possible on the backstore. */
    public static boolean thin(Device dev) { return Vpd.thin(dev); }
}
