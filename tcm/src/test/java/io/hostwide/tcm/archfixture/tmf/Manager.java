package io.hostwide.tcm.archfixture.tmf;

import io.hostwide.tcm.archfixture.Entry;
import io.hostwide.tcm.archfixture.core.Engine;

/** Uses core (allowed) and the root package (a reach-up, and a cycle with Entry). */
public final class Manager {
    public Engine engine;
    public Entry entry;
}
