package io.hostwide.iscsi.pdu;

import static io.hostwide.iscsi.spec.Bhs.*;

import io.hostwide.iscsi.spec.Bhs;
import io.hostwide.iscsi.spec.Opcode;
import java.nio.ByteBuffer;

/** Task Management Function Response, RFC 7143 §11.6. */
public record TaskManagementResponse(int response, int initiatorTaskTag, int statSn, int expCmdSn, int maxCmdSn)
        implements Pdu {

    @Override
    public Opcode opcode() {
        return Opcode.TASK_MANAGEMENT_RESPONSE;
    }

    @Override
    public void writeBhs(ByteBuffer out, int at) {
        Wire.header(out, at, Opcode.TASK_MANAGEMENT_RESPONSE.code, false, FINAL_BIT, 0);
        out.put(at + Bhs.TaskManagementResponse.RESPONSE, (byte) response);
        out.putInt(at + INITIATOR_TASK_TAG, initiatorTaskTag);
        out.putInt(at + STAT_SN, statSn);
        out.putInt(at + EXP_CMD_SN, expCmdSn);
        out.putInt(at + MAX_CMD_SN, maxCmdSn);
    }

    static TaskManagementResponse read(ByteBuffer b, int at) {
        return new TaskManagementResponse(Wire.u8(b, at + Bhs.TaskManagementResponse.RESPONSE),
                b.getInt(at + INITIATOR_TASK_TAG), b.getInt(at + STAT_SN), b.getInt(at + EXP_CMD_SN),
                b.getInt(at + MAX_CMD_SN));
    }
}
