package io.hostwide.tcm.archfixture.dispatch;

import io.hostwide.tcm.archfixture.port.Port;

/** Uses port (allowed). */
public final class Row {
    public Port port;
}
