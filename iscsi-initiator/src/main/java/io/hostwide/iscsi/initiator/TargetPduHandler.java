package io.hostwide.iscsi.initiator;

import io.hostwide.iscsi.pdu.AsyncMessage;
import io.hostwide.iscsi.pdu.DataIn;
import io.hostwide.iscsi.pdu.LogoutResponse;
import io.hostwide.iscsi.pdu.NopIn;
import io.hostwide.iscsi.pdu.NopOut;
import io.hostwide.iscsi.pdu.Pdu;
import io.hostwide.iscsi.pdu.R2t;
import io.hostwide.iscsi.pdu.Reject;
import io.hostwide.iscsi.pdu.ScsiResponse;
import io.hostwide.iscsi.pdu.TaskManagementResponse;
import io.hostwide.iscsi.spec.AsyncEvent;
import io.hostwide.iscsi.spec.Bhs;
import io.hostwide.iscsi.spec.Flags;
import io.hostwide.iscsi.spec.Codes;
import io.hostwide.iscsi.spec.Opcode;
import io.hostwide.iscsi.spec.RejectReason;
import io.hostwide.iscsi.spec.TaskManagement;
import io.hostwide.scsi.mid.HostByte;
import io.hostwide.scsi.mid.ScsiCmnd;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * What the initiator does with each target PDU in full feature phase (RFC 7143 §11): Data-In into the command's
 * buffer, status (phase-collapsed or a SCSI Response with sense and residuals) into its completion, R2Ts answered
 * with Data-Out, NOP-In pings answered, task management and logout responses to their waiters. Returns null, or a
 * description of a protocol violation after which the connection must drop.
 */
final class TargetPduHandler {
    private final InitiatorSession session;
    private final TaskTable table;
    private final DataOutSender dataOut;
    private final InitiatorStats stats;

    TargetPduHandler(InitiatorSession session, TaskTable table, DataOutSender dataOut, InitiatorStats stats) {
        this.session = session;
        this.table = table;
        this.dataOut = dataOut;
        this.stats = stats;
    }

    String handle(IscsiConnection c, Pdu pdu) throws IOException {
        return switch (pdu) {
            case DataIn d -> dataIn(c, d.statusPresent(), d.underflow(), d.status(), d.initiatorTaskTag(), d.statSn(),
                    d.expCmdSn(), d.maxCmdSn(), d.bufferOffset(), d.residualCount(), d.data(), d.data().position(),
                    d.data().remaining());
            case ScsiResponse r -> scsiResponse(c, r.underflow(), r.response(), r.status(), r.initiatorTaskTag(),
                    r.statSn(), r.expCmdSn(), r.maxCmdSn(), r.residualCount(), r.data(), r.data().position(),
                    r.data().remaining());
            case R2t r -> r2t(c, r);
            case NopIn n -> nopIn(c, n);
            case TaskManagementResponse t -> {
                c.statSn(t.statSn());
                c.window.update(t.expCmdSn(), t.maxCmdSn());
                session.tmfDone(t.initiatorTaskTag(), t.response());
                yield null;
            }
            case LogoutResponse l -> {
                c.statSn(l.statSn());
                session.tmfDone(l.initiatorTaskTag(), l.response());
                yield null;
            }
            case Reject r -> reject(c, r);
            case AsyncMessage a -> async(c, a);
            default -> "unexpected " + pdu.opcode() + " in full feature phase";
        };
    }

    /**
     * The hot path: a Data-In or SCSI Response read in place (BHS at {@code b} of {@code f}, data at {@code at}, or
     * {@code at} = -1 for a Data-In whose data the reader already placed in the command's buffer), fields by
     * the {@link Bhs} offsets the records use; nothing is allocated.
     */
    String handleHot(IscsiConnection c, ByteBuffer f, int b, int at, int len) {
        int flags = f.get(b + Bhs.FLAGS);
        if ((f.get(b + Bhs.OPCODE) & Bhs.OPCODE_MASK) == Opcode.SCSI_DATA_IN.code) {
            return dataIn(c, (flags & Flags.DATA_IN_STATUS) != 0, (flags & Flags.DATA_IN_UNDERFLOW) != 0,
                    f.get(b + Bhs.Data.STATUS) & 0xff, f.getInt(b + Bhs.INITIATOR_TASK_TAG), f.getInt(b + Bhs.STAT_SN),
                    f.getInt(b + Bhs.EXP_CMD_SN), f.getInt(b + Bhs.MAX_CMD_SN), f.getInt(b + Bhs.Data.BUFFER_OFFSET),
                    f.getInt(b + Bhs.Data.RESIDUAL_COUNT), f, at, len);
        }
        return scsiResponse(c, (flags & Flags.SCSI_RESPONSE_UNDERFLOW) != 0,
                f.get(b + Bhs.ScsiResponse.RESPONSE) & 0xff, f.get(b + Bhs.ScsiResponse.STATUS) & 0xff,
                f.getInt(b + Bhs.INITIATOR_TASK_TAG), f.getInt(b + Bhs.STAT_SN), f.getInt(b + Bhs.EXP_CMD_SN),
                f.getInt(b + Bhs.MAX_CMD_SN), f.getInt(b + Bhs.ScsiResponse.RESIDUAL_COUNT), f, at, len);
    }

    /** {@link #live} for the connection's direct placement of Data-In. */
    IscsiTask liveTask(int itt) {
        return live(itt);
    }

    /** The task of a live issue, or null for a stale ITT (an issue already ended: the PDU is dropped). */
    private IscsiTask live(int itt) {
        IscsiTask t = table.lookup(itt);
        return t != null && t.itt() == itt ? t : null;
    }

    // RFC 7143 §11.7: Data-In, with S=1 carrying the status too (§11.7.3 phase collapse).
    private String dataIn(IscsiConnection c, boolean statusPresent, boolean underflow, int status, int itt, int statSn,
                          int expCmdSn, int maxCmdSn, int bufferOffset, int residualCount, ByteBuffer data, int at,
                          int len) {
        c.window.update(expCmdSn, maxCmdSn);
        if (statusPresent) {
            c.statSn(statSn);
        }
        IscsiTask t = live(itt);
        if (t == null) {
            return null;
        }
        ScsiCmnd cmd = t.cmd;
        long off = bufferOffset & 0xffff_ffffL;
        if (len > 0 && (cmd.dataDirection() != ScsiCmnd.DIR_FROM_DEVICE || off + len > cmd.transferLength())) {
            return "Data-In outside the command's buffer (offset " + off + ", length " + len + ", expected "
                    + cmd.transferLength() + ")";
        }
        stats.dataInPdus.increment();
        if (len > 0 && at < 0) {
            t.received += len;   // already placed in the buffer by the reader (PduChannel.Placement)
        } else if (len > 0) {
            if (!t.beginCopy(itt)) {
                return null;   // ended meanwhile (abort, reset): its buffer is not ours any more
            }
            try {
                cmd.buffer().put(cmd.bufferPosition() + (int) off, data, at, len);
                t.received += len;
            } finally {
                t.endCopy();
            }
        }
        if (statusPresent) {
            int resid = Math.max(underflow ? residualCount : 0, cmd.transferLength() - t.received);
            session.complete(t, itt, HostByte.DID_OK, status, null, 0, 0, resid);
        }
        return null;
    }

    // RFC 7143 §11.4: status, sense in the data segment (§11.4.7.2: SenseLength, then the sense data).
    private String scsiResponse(IscsiConnection c, boolean underflow, int response, int status, int itt, int statSn,
                                int expCmdSn, int maxCmdSn, int residualCount, ByteBuffer data, int at, int len) {
        c.statSn(statSn);
        c.window.update(expCmdSn, maxCmdSn);
        IscsiTask t = live(itt);
        if (t == null) {
            return null;
        }
        ScsiCmnd cmd = t.cmd;
        int senseLen = 0;
        if (len >= 2) {
            int declared = data.getShort(at) & 0xffff;
            senseLen = Math.min(Math.min(declared, len - 2), c.senseScratch.length);
            data.get(at + 2, c.senseScratch, 0, senseLen);
        }
        int resid = underflow ? residualCount : 0;
        if (cmd.dataDirection() == ScsiCmnd.DIR_FROM_DEVICE) {
            resid = Math.max(resid, cmd.transferLength() - t.received);
        }
        // §11.4.3: a response other than "completed at target" carries no valid status.
        int hostByte = response == Codes.COMMAND_COMPLETED_AT_TARGET ? HostByte.DID_OK : HostByte.DID_ERROR;
        session.complete(t, itt, hostByte, status, c.senseScratch, 0, senseLen, resid);
        return null;
    }

    // RFC 7143 §11.8: the target asks for DesiredDataTransferLength bytes at BufferOffset.
    private String r2t(IscsiConnection c, R2t r) throws IOException {
        c.window.update(r.expCmdSn(), r.maxCmdSn());
        IscsiTask t = live(r.initiatorTaskTag());
        if (t == null) {
            return null;
        }
        long off = r.bufferOffset() & 0xffff_ffffL;
        long len = r.desiredDataTransferLength() & 0xffff_ffffL;
        if (t.cmd.dataDirection() != ScsiCmnd.DIR_TO_DEVICE || len == 0 || off + len > t.cmd.transferLength()) {
            return "R2T outside the command's data (offset " + off + ", length " + len + ")";
        }
        stats.r2ts.increment();
        dataOut.send(c, t, r.initiatorTaskTag(), r.targetTransferTag(), (int) off, (int) len);
        return null;
    }

    // RFC 7143 §11.19: a target ping (TTT != 0xffffffff) wants a NOP-Out back with the same TTT and LUN.
    private String nopIn(IscsiConnection c, NopIn n) throws IOException {
        c.window.update(n.expCmdSn(), n.maxCmdSn());
        if (n.initiatorTaskTag() != Codes.RESERVED_TAG) {
            c.statSn(n.statSn());   // an answer to a ping of ours (we send none; kept for the StatSN)
        }
        if (n.targetTransferTag() != Codes.RESERVED_TAG) {
            stats.nopInPings.increment();
            ByteBuffer echo = n.data().remaining() <= c.params.targetMaxRecvDataSegmentLength()
                    ? copy(n.data()) : null;
            c.send(new NopOut(true, n.lun(), Codes.RESERVED_TAG, n.targetTransferTag(), c.window.current(),
                    c.expStatSn(), echo));
        }
        return null;
    }

    // RFC 7143 §11.17: the data segment is the rejected PDU's header.
    private String reject(IscsiConnection c, Reject r) {
        c.statSn(r.statSn());
        c.window.update(r.expCmdSn(), r.maxCmdSn());
        if (r.reason() == RejectReason.WAITING_FOR_LOGOUT.code) {
            return "the target rejected a command: waiting for logout";
        }
        ByteBuffer h = r.data();
        if (h.remaining() < 48) {
            return null;
        }
        int code = h.get(h.position()) & 0x3f;
        int itt = h.getInt(h.position() + 16);
        if (code == Opcode.SCSI_COMMAND.code || code == Opcode.SCSI_DATA_OUT.code) {
            IscsiTask t = live(itt);
            if (t != null) {   // ERL 0 has no retransmission: the midlayer retries the command
                session.complete(t, itt, HostByte.DID_ERROR, 0, null, 0, 0, t.cmd.transferLength());
            }
        } else if (code == Opcode.TASK_MANAGEMENT_REQUEST.code || code == Opcode.LOGOUT_REQUEST.code) {
            session.tmfDone(itt, TaskManagement.FUNCTION_REJECTED);
        }
        return null;
    }

    // RFC 7143 §11.9: logout requests and connection drops announced by the target end in session recovery.
    private String async(IscsiConnection c, AsyncMessage a) {
        c.statSn(a.statSn());
        c.window.update(a.expCmdSn(), a.maxCmdSn());
        return switch (a.asyncEvent()) {
            case AsyncEvent.LOGOUT_REQUEST -> "the target requested a logout";
            case AsyncEvent.CONNECTION_DROP -> "the target is dropping the connection";
            case AsyncEvent.SESSION_DROP -> "the target is dropping all connections";
            default -> null;   // SCSI async events come back as unit attentions; renegotiation is not offered
        };
    }

    private static ByteBuffer copy(ByteBuffer b) {
        if (!b.hasRemaining()) {
            return null;
        }
        ByteBuffer c = ByteBuffer.allocate(b.remaining());
        c.put(b.duplicate()).flip();
        return c;
    }
}
