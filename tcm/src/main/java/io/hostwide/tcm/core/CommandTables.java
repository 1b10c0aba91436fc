package io.hostwide.tcm.core;

import io.hostwide.tcm.alua.TargetPortGroupCommands;
import io.hostwide.tcm.dispatch.CommandTable;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.pr.PrCommands;
import io.hostwide.tcm.sbc.SbcCommands;
import io.hostwide.tcm.spc.NoLunCommands;
import io.hostwide.tcm.spc.SpcCommands;
import io.hostwide.tcm.xcopy.CopyCommands;

/**
 * Assembles command tables from what each command set contributes (tgt's per-device-type ops table): a
 * direct-access block device gets the SPC-4 rows, the SBC-4 rows its attributes allow, and the rows of the
 * reservation, ALUA and copy layers. No command set adds another's rows; this is the one place that knows them
 * all. Tables are immutable once built and shared by devices with the same capabilities.
 */
public final class CommandTables {
    private CommandTables() {}

    private static final CommandTable FULL = directAccess(true, true, true, true);
    private static final CommandTable NO_LUN = NoLunCommands.table();

    /** Every row this core implements: a thin device with COMPARE AND WRITE, WRITE ATOMIC and SANITIZE. */
    public static CommandTable full() { return FULL; }

    /** What a nexus may send to a LUN it does not have, or to the REPORT LUNS well-known LUN (SPC-4 §4.3.2). */
    public static CommandTable noLun() { return NO_LUN; }

    /** The table of {@code d}, from its attributes and what its backstore can do. */
    public static CommandTable of(Device d) {
        boolean thin = d.thinProvisioned();
        boolean caw = d.attributes().emulateCaw();
        boolean writeAtomic = d.attributes().emulateWriteAtomic();
        boolean sanitize = d.attributes().emulateSanitize();
        return thin && caw && writeAtomic && sanitize ? FULL : directAccess(thin, caw, writeAtomic, sanitize);
    }

    private static CommandTable directAccess(boolean thin, boolean caw, boolean writeAtomic, boolean sanitize) {
        CommandTable t = new CommandTable();
        SpcCommands.addTo(t);
        SbcCommands.addTo(t, thin, caw, writeAtomic, sanitize);
        PrCommands.addTo(t);
        TargetPortGroupCommands.addTo(t);
        CopyCommands.addTo(t);
        return t;
    }
}
