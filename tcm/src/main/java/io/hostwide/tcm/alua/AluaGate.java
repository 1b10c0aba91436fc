package io.hostwide.tcm.alua;

import io.hostwide.tcm.dispatch.Command;
import io.hostwide.tcm.dispatch.CommandDescriptor;
import io.hostwide.tcm.dispatch.CommandGate;
import io.hostwide.tcm.lu.AluaAccessState;
import io.hostwide.tcm.lu.SharedAccess;
import io.hostwide.tcm.lu.TargetPortGroup;
import io.hostwide.tcm.lu.SessionLun;
import io.hostwide.tcm.spi.SenseReason;

/**
 * The {@link io.hostwide.tcm.dispatch.GateSlot#ALUA} gate (SPC-4 §5.15.2.4): a command reaching the LU through a port
 * whose group is not active runs only if its row allows that state ({@link CommandDescriptor#aluaAllowed()}),
 * else it ends NOT READY with LOGICAL UNIT NOT ACCESSIBLE: ASYMMETRIC ACCESS STATE TRANSITION (04h/0Ah), TARGET
 * PORT IN STANDBY STATE (04h/0Bh), TARGET PORT IN UNAVAILABLE STATE (04h/0Ch); offline lets only INQUIRY, REPORT
 * LUNS and REQUEST SENSE through (04h/12h otherwise). Two volatile reads (the LUN's group, the group's state
 * record), no lock. A command that writes the medium of an LU shared by several gateways ({@link SharedAccess})
 * runs through an active group only when the LU's policy admits it, else it ends 04h/0Ah while ownership moves.
 */
public final class AluaGate implements CommandGate {

    @Override
    public int enter(Command cmd) {
        SessionLun sl = cmd.sessionLun();
        if (sl == null) {
            return PASS;
        }
        TargetPortGroup g = sl.lun().aluaGroup();
        AluaAccessState st = g.accessState();
        CommandDescriptor d = cmd.descriptor();
        if (st.active()) {
            SharedAccess shared;
            if (!d.has(CommandDescriptor.WRITES_MEDIUM) || (shared = sl.lun().device().alua().shared()) == null
                    || shared.admitsWrite(g)) {
                return PASS;
            }
            cmd.fail(SenseReason.ALUA_TRANSITIONING); // another gateway owns the LU (SharedAccess)
            return FAIL;
        }
        int allowed = d.aluaAllowed();
        SenseReason r = switch (st.state()) {
            case AluaAccessState.STANDBY -> (allowed & CommandDescriptor.ALUA_STANDBY) != 0 ? null : SenseReason.ALUA_STANDBY;
            case AluaAccessState.UNAVAILABLE ->
                    (allowed & CommandDescriptor.ALUA_UNAVAILABLE) != 0 ? null : SenseReason.ALUA_UNAVAILABLE;
            case AluaAccessState.TRANSITIONING ->
                    (allowed & CommandDescriptor.ALUA_TRANSITIONING) != 0 ? null : SenseReason.ALUA_TRANSITIONING;
            default -> d.has(CommandDescriptor.NO_LUN_OK) ? null : SenseReason.ALUA_OFFLINE;
        };
        if (r == null) {
            return PASS;
        }
        cmd.fail(r);
        return FAIL;
    }
}
