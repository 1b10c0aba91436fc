package io.hostwide.iscsi.pdu;

import static io.hostwide.iscsi.spec.Bhs.*;

import io.hostwide.iscsi.spec.Bhs;
import io.hostwide.iscsi.spec.Opcode;
import java.nio.ByteBuffer;

/** Task Management Function Request, RFC 7143 §11.5; {@code function} codes in {@link io.hostwide.iscsi.spec.TaskManagement}. */
public record TaskManagementRequest(
        boolean immediate, int function, long lun, int initiatorTaskTag, int referencedTaskTag, int cmdSn,
        int expStatSn, int refCmdSn, int expDataSn) implements Pdu {

    @Override
    public Opcode opcode() {
        return Opcode.TASK_MANAGEMENT_REQUEST;
    }

    @Override
    public void writeBhs(ByteBuffer out, int at) {
        Wire.header(out, at, Opcode.TASK_MANAGEMENT_REQUEST.code, immediate, FINAL_BIT | (function & 0x7f), 0);
        out.putLong(at + LUN, lun);
        out.putInt(at + INITIATOR_TASK_TAG, initiatorTaskTag);
        out.putInt(at + Bhs.TaskManagementRequest.REFERENCED_TASK_TAG, referencedTaskTag);
        out.putInt(at + CMD_SN, cmdSn);
        out.putInt(at + EXP_STAT_SN, expStatSn);
        out.putInt(at + Bhs.TaskManagementRequest.REF_CMD_SN, refCmdSn);
        out.putInt(at + Bhs.TaskManagementRequest.EXP_DATA_SN, expDataSn);
    }

    static TaskManagementRequest read(ByteBuffer b, int at) {
        return new TaskManagementRequest((b.get(at) & IMMEDIATE_BIT) != 0, b.get(at + FLAGS) & 0x7f,
                b.getLong(at + LUN), b.getInt(at + INITIATOR_TASK_TAG),
                b.getInt(at + Bhs.TaskManagementRequest.REFERENCED_TASK_TAG), b.getInt(at + CMD_SN),
                b.getInt(at + EXP_STAT_SN), b.getInt(at + Bhs.TaskManagementRequest.REF_CMD_SN),
                b.getInt(at + Bhs.TaskManagementRequest.EXP_DATA_SN));
    }
}
