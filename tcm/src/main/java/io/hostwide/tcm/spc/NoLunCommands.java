package io.hostwide.tcm.spc;

import io.hostwide.tcm.dispatch.CommandTable;

/**
 * What a nexus may send to a LUN it does not have, or to the REPORT LUNS well-known LUN (SPC-4 §4.3.2,
 * SAM-5 §4.7.7): INQUIRY (peripheral qualifier 011b), REPORT LUNS and REQUEST SENSE. Anything else gets
 * LOGICAL UNIT NOT SUPPORTED.
 */
public final class NoLunCommands {
    private NoLunCommands() {}

    public static CommandTable table() {
        return new CommandTable()
                .add(SpcCommands.inquiry())
                .add(SpcCommands.reportLuns())
                .add(SpcCommands.requestSense());
    }
}
