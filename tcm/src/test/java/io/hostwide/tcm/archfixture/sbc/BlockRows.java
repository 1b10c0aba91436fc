package io.hostwide.tcm.archfixture.sbc;

import io.hostwide.tcm.archfixture.dispatch.Row;
import io.hostwide.tcm.archfixture.spc.SpcRows;

/** Uses dispatch (allowed) and another command set, spc (not allowed). */
public final class BlockRows {
    public Row row;
    public SpcRows spcRows;
}
