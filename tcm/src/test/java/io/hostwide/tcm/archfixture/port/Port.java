package io.hostwide.tcm.archfixture.port;

import io.hostwide.tcm.archfixture.lu.Unit;

/** Uses lu (allowed). */
public final class Port {
    public Unit unit;
}
