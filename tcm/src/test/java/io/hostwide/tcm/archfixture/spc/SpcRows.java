package io.hostwide.tcm.archfixture.spc;

import io.hostwide.tcm.archfixture.dispatch.Row;

/** A command set that uses only dispatch. */
public final class SpcRows {
    public Row row;
}
