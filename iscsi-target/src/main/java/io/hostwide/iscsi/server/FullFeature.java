package io.hostwide.iscsi.server;

import io.hostwide.iscsi.login.NegotiatedParameters;
import io.hostwide.iscsi.pdu.DataOut;
import io.hostwide.iscsi.pdu.HotPdu;
import io.hostwide.iscsi.pdu.LoginRequest;
import io.hostwide.iscsi.pdu.LogoutRequest;
import io.hostwide.iscsi.pdu.NopOut;
import io.hostwide.iscsi.pdu.Pdu;
import io.hostwide.iscsi.pdu.ScsiCommand;
import io.hostwide.iscsi.pdu.SnackRequest;
import io.hostwide.iscsi.pdu.TaskManagementRequest;
import io.hostwide.iscsi.pdu.TextRequest;
import io.hostwide.iscsi.spec.Bhs;
import io.hostwide.iscsi.spec.Codes;
import io.hostwide.iscsi.spec.RejectReason;
import io.hostwide.scsi.spec.TaskAttribute;
import io.hostwide.tcm.spi.TargetCommand;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * The full feature phase of one connection (RFC 7143 §3.2.2 onwards): CmdSN ordering, SCSI command intake and the
 * connection's task table, and the end of each task. A write's data and R2Ts are {@link R2tSequencer}'s; NOP, Text,
 * task management and Logout are {@link FfpControl}'s. Runs on the connection's reader thread except
 * {@link #completed}, which runs where the core completes a command.
 */
final class FullFeature {
    private static final int MAX_CDB = 260;

    final Connection conn;
    final IscsiSession session;
    final NegotiatedParameters params;
    final ConnectionTasks tasks;
    private final byte[] cdb = new byte[MAX_CDB];
    private final CommandArgs args = new CommandArgs();
    private final FfpControl control;
    private final R2tSequencer r2t;

    FullFeature(Connection conn, IscsiSession session, NegotiatedParameters params) {
        this.conn = conn;
        this.session = session;
        this.params = params;
        this.tasks = new ConnectionTasks(conn);
        this.control = new FfpControl(this);
        this.r2t = new R2tSequencer(this);
    }

    void onPdu(Pdu p) {
        if (Connection.TRACE) {
            Connection.LOG.info("cid " + conn.cid() + " <- " + p);
        }
        switch (p) {
            case DataOut d -> r2t.dataOut(d.initiatorTaskTag(), d.targetTransferTag(), d.dataSn(), d.bufferOffset(),
                    d.fin(), d.data(), d.data().position(), d.data().remaining(), d, null); // never CmdSN-ordered
            case SnackRequest s -> reject(RejectReason.PROTOCOL_ERROR, s); // SNACK needs ERL > 0, RFC 7143 §11.16
            case LoginRequest l -> reject(RejectReason.PROTOCOL_ERROR, l); // §6: login only before FFP
            case NopOut n when n.initiatorTaskTag() == Codes.RESERVED_TAG -> // answer to our NOP-In: nothing back
                    conn.keepalive.answered(n.targetTransferTag());
            case ScsiCommand c -> orderedCommand(args.of(c));
            case NopOut n -> ordered(n, n.cmdSn(), n.immediate());
            case TextRequest t -> ordered(t, t.cmdSn(), t.immediate());
            case TaskManagementRequest t -> ordered(t, t.cmdSn(), t.immediate());
            case LogoutRequest l -> ordered(l, l.cmdSn(), l.immediate());
            default -> reject(RejectReason.COMMAND_NOT_SUPPORTED, p);
        }
    }

    /** The hot path: a SCSI Command or Data-Out read straight from the receive buffer, no records. */
    void onHot(HotPdu v) {
        if (v.opcode() == io.hostwide.iscsi.spec.Opcode.SCSI_DATA_OUT.code) {
            r2t.dataOut(v.initiatorTaskTag(), v.targetTransferTag(), v.dataSn(), v.bufferOffset(), v.fin(), v.buffer(),
                    v.dataAt(), v.dataLength(), null, v);
        } else {
            orderedCommand(args.of(v));
        }
    }

    private void orderedCommand(CommandArgs a) {
        if (a.immediate) {
            scsiCommand(a, false);
            return;
        }
        List<IscsiSession.Deferred> ready = session.order(a.cmdSn, conn, null, a);
        if (ready != null) {
            scsiCommand(a, true);
            runDeferred(ready);
        }
    }

    /** RFC 7143 §3.2.2.1: immediate commands run at once; the others in CmdSN order within the window. */
    private void ordered(Pdu p, int cmdSn, boolean immediate) {
        if (immediate) {
            execute(p, false);
            return;
        }
        List<IscsiSession.Deferred> ready = session.order(cmdSn, conn, p, null);
        if (ready == null) {
            return; // outside the window (silently ignored) or queued behind a gap
        }
        execute(p, true);
        runDeferred(ready);
    }

    /** Commands that waited for a CmdSN gap (MC/S) run now, in order, each on its own connection's state. */
    private void runDeferred(List<IscsiSession.Deferred> ready) {
        for (IscsiSession.Deferred d : ready) {
            FullFeature owner = d.connection().fullFeature();
            try {
                if (owner != null && !d.connection().isClosed()) {
                    owner.execute(d.pdu(), true);
                    if (!d.connection().onReaderThread()) {
                        d.connection().writer.flush();
                    }
                } else {
                    session.commandDone();
                }
            } finally {
                session.deferredStarted();
            }
        }
    }

    void execute(Pdu p, boolean counted) {
        switch (p) {
            case ScsiCommand c -> scsiCommand(conn.onReaderThread() ? args.of(c) : new CommandArgs().of(c), counted);
            default -> {
                if (counted) {
                    session.commandDone(); // non-SCSI commands finish as they are answered
                }
                control.execute(p);
            }
        }
    }

    private void scsiCommand(CommandArgs c, boolean counted) {
        if (session.discovery()) { // RFC 7143 §3.3: a discovery session carries Text, NOP and Logout
            doneUncounted(counted);
            conn.reject(RejectReason.PROTOCOL_ERROR, c.header());
            return;
        }
        TaskAttribute attr = TaskAttribute.fromIscsiAttr(c.attr);
        if (attr == null || c.cdbLength > MAX_CDB) {
            doneUncounted(counted);
            conn.reject(RejectReason.INVALID_PDU_FIELD, c.header());
            return;
        }
        Task t = tasks.claim(c.itt);
        if (t == null) { // RFC 7143 §11.17.1: an ITT still in use
            doneUncounted(counted);
            conn.reject(RejectReason.TASK_IN_PROGRESS, c.header());
            return;
        }
        byte[] cdbCopy = conn.onReaderThread() ? cdb : new byte[MAX_CDB];
        c.cdb.get(c.cdbAt, cdbCopy, 0, c.cdbLength);
        int dir = (c.read ? TargetCommand.DIR_READ : 0) | (c.write ? TargetCommand.DIR_WRITE : 0);
        TargetCommand cmd = session.core.newCommand();
        cmd.setup(c.lun, cdbCopy, 0, c.cdbLength, attr, c.itt & 0xffff_ffffL, c.edtl, dir);
        if (c.read && c.write && c.bidi >= 0) {
            cmd.bidiReadLength((int) Math.min(Integer.MAX_VALUE, c.bidi));
        }
        cmd.fabricPrivate(t);
        t.cmd = cmd;
        t.itt = c.itt;
        t.lun = c.lun;
        t.expectedLength = c.edtl;
        t.counted = counted;
        t.dataInSn = 0;
        t.r2tCount = 0;
        t.dataOut = null;
        r2t.start(t, c);
    }

    private void doneUncounted(boolean counted) {
        if (counted) {
            session.commandDone();
        }
    }

    /** Sends the command's response and frees its task; exactly once per command, on the completing thread. */
    void completed(Task t) {
        tasks.remove(t.itt);
        if (t.counted) {
            session.commandDone();
        }
        // RFC 7143 §11.5.1: a task this session's TMF aborted gets no response (the core marks it suppressed);
        // one aborted by another session's TMF ends with TASK ABORTED (TAS = 1) like any other status
        if (!conn.isClosed() && !t.cmd.responseSuppressed() && conn.writer.completion(t, session)) {
            return; // its Data-In goes out from its own buffer: the writer recycles it once written
        }
        recycle(t);
    }

    /** Releases the task's command (and its buffers) and pools the task; exactly once per command. */
    void recycle(Task t) {
        TargetCommand cmd = t.cmd;
        t.cmd = null;
        t.dataOut = null;
        t.state = 0;
        if (cmd != null) {
            cmd.release();
        }
        tasks.free(t);
    }

    /** Ends a task that never reached the core with a Target Failure response (no SCSI status, no sense). */
    void failTask(Task t) { // called holding t's monitor
        if (tasks.remove(t.itt) != t) {
            return;
        }
        t.state = 0;
        if (t.counted) {
            session.commandDone();
        }
        conn.writer.targetFailure(t, session);
        recycle(t);
    }

    /**
     * Ends a task that never reached the core with a SCSI status of this fabric's own (see {@link
     * R2tSequencer#start}); Data-Out PDUs still on their way find no task and are discarded.
     */
    void refuseTask(Task t, int status, byte[] sense, int senseLength) { // called holding t's monitor
        if (tasks.remove(t.itt) != t) {
            return;
        }
        t.state = 0;
        if (t.counted) {
            session.commandDone();
        }
        conn.writer.refused(t, session, status, sense, senseLength);
        recycle(t);
    }

    /**
     * Ends a task that never reached the core (waiting for data): its slot and command are freed once. Returns
     * false when the task is no longer waiting (its last Data-Out submitted it meanwhile: the core aborts it).
     */
    boolean abortTask(Task t) {
        return endWaiting(t, false);
    }

    /**
     * Another I_T nexus's task management function (LOGICAL UNIT RESET, CLEAR TASK SET, TARGET WARM/COLD RESET)
     * aborted a task of this connection that waits for Data-Out: it ends with TASK ABORTED status (TAS = 1, as
     * the core ends third-party tasks it holds; SAM-5 §7.1), its later Data-Out PDUs find no task and are
     * discarded (RFC 7143 §11.5.1: an aborted task's data is not written), and the next command sees the reset's
     * unit attention. Any thread; the response is flushed when not on this connection's reader.
     */
    boolean abortForOtherNexus(Task t) {
        return endWaiting(t, true);
    }

    private boolean endWaiting(Task t, boolean respond) {
        boolean mine;
        synchronized (t) { // the reader submits a task under this monitor: state is exact here
            mine = tasks.removeWaiting(t);
            if (mine) {
                t.state = 0; // a thread waiting on t to add Data-Out now sees the task is gone
            }
        }
        if (!mine) {
            return false;
        }
        if (t.counted) {
            session.commandDone();
        }
        if (respond && !conn.isClosed()) {
            conn.writer.taskAborted(t, session);
            if (!conn.onReaderThread()) {
                conn.writer.flush();
            }
        }
        recycle(t);
        return true;
    }

    /** Connection gone (ERL 0): tasks waiting for data end here; submitted ones end in {@link #completed}. */
    void abortAll() {
        for (Task t : tasks.waiting(t -> true)) {
            abortTask(t);
        }
    }

    /** Tasks of this connection waiting for Data-Out on {@code lun} (or all when lun is -1), for TMFs. */
    List<Task> waitingTasks(long lun, int itt, boolean byItt) {
        return tasks.waiting(t -> byItt ? t.itt == itt : lun == -1 || t.lun == lun);
    }

    void reject(RejectReason reason, Pdu p) {
        ByteBuffer header = ByteBuffer.allocate(Bhs.LENGTH);
        p.writeBhs(header, 0);
        conn.reject(reason, header);
    }
}
