package io.hostwide.tcm.archfixture.core;

import io.hostwide.tcm.archfixture.lu.Unit;
import io.hostwide.tcm.archfixture.sbc.BlockRows;
import io.hostwide.tcm.archfixture.spc.SpcRows;

/** Uses the command sets and lu, all below it (allowed; with Unit's reach-up, lu and core form a cycle). */
public final class Engine {
    public BlockRows blockRows;
    public SpcRows spcRows;
    public Unit unit;
}
