package io.hostwide.tcm.archfixture.lu;

import io.hostwide.tcm.archfixture.core.Engine;
import io.hostwide.tcm.archfixture.spi.Storage;

/** Uses spi (allowed) and reaches up into core (not allowed). */
public final class Unit {
    public Storage storage;
    public Engine engine;
}
