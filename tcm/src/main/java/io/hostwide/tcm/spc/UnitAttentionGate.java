package io.hostwide.tcm.spc;

import io.hostwide.tcm.dispatch.Command;
import io.hostwide.tcm.dispatch.CommandDescriptor;
import io.hostwide.tcm.dispatch.CommandGate;
import io.hostwide.tcm.lu.SessionLun;
import io.hostwide.tcm.lu.UnitAttentionQueue;

/**
 * SAM-5 §5.14 / SPC-4 §5.14: a command from an I_T nexus with a pending unit attention fails with CHECK
 * CONDITION / UNIT ATTENTION reporting (and clearing) the head condition, except INQUIRY, REPORT LUNS and
 * REQUEST SENSE. The fast path is one volatile read of the queue's count.
 */
public final class UnitAttentionGate implements CommandGate {
    @Override
    public int enter(Command cmd) {
        SessionLun sl = cmd.sessionLun();
        if (sl == null) {
            return PASS;
        }
        UnitAttentionQueue q = sl.unitAttentions();
        if (q.isEmpty() || cmd.descriptor().has(CommandDescriptor.UA_EXEMPT)) {
            return PASS;
        }
        int ua = q.poll();
        if (ua < 0) {
            return PASS;
        }
        cmd.failUnitAttention(ua);
        return FAIL;
    }
}
