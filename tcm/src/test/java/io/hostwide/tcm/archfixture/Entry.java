package io.hostwide.tcm.archfixture;

import io.hostwide.tcm.archfixture.tmf.Manager;

/** The fixture's entry point; allowed to use tmf. */
public final class Entry {
    public final Manager manager = new Manager();
}
