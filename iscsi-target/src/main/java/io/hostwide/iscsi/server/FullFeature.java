package io.hostwide.iscsi.server;

import io.hostwide.iscsi.login.NegotiatedParameters;
import io.hostwide.iscsi.pdu.DataOut;
import io.hostwide.iscsi.pdu.HotPdu;
import io.hostwide.iscsi.pdu.LoginRequest;
import io.hostwide.iscsi.pdu.LogoutRequest;
import io.hostwide.iscsi.pdu.NopIn;
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
import java.util.ArrayDeque;
import java.util.List;

/**
 * The full feature phase of one connection (RFC 7143 §3.2.2 onwards): CmdSN ordering, SCSI commands with immediate,
 * unsolicited and solicited data handed to the core, NOP, Text, task management and Logout. Runs on the connection's
 * reader thread except {@link #completed}, which runs where the core completes a command.
 */
final class FullFeature {
    private static final int MAX_CDB = 260;

    final Connection conn;
    final IscsiSession session;
    final NegotiatedParameters params;
    private final IntMap<Task> tasks = new IntMap<>(64); // guarded by itself
    private final ArrayDeque<Task> freeTasks = new ArrayDeque<>(); // guarded by tasks
    private final byte[] cdb = new byte[MAX_CDB];
    private final int[] r2tOut = new int[2];
    private final java.util.concurrent.atomic.AtomicInteger nextTtt = new java.util.concurrent.atomic.AtomicInteger(1);
    private final CommandArgs args = new CommandArgs();
    private final FfpControl control;

    FullFeature(Connection conn, IscsiSession session, NegotiatedParameters params) {
        this.conn = conn;
        this.session = session;
        this.params = params;
        this.control = new FfpControl(this);
    }

    void onPdu(Pdu p) {
        if (Connection.TRACE) {
            Connection.LOG.info("cid " + conn.cid() + " <- " + p);
        }
        switch (p) {
            case DataOut d -> dataOut(d.initiatorTaskTag(), d.targetTransferTag(), d.dataSn(), d.bufferOffset(),
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
            dataOut(v.initiatorTaskTag(), v.targetTransferTag(), v.dataSn(), v.bufferOffset(), v.fin(), v.buffer(),
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
        Task t;
        synchronized (tasks) {
            if (tasks.get(c.itt) != null) {
                t = null;
            } else {
                t = freeTasks.isEmpty() ? new Task(conn, 16) : freeTasks.pop();
                tasks.put(c.itt, t);
            }
        }
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
        startData(t, c);
    }

    private void doneUncounted(boolean counted) {
        if (counted) {
            session.commandDone();
        }
    }

    /** Collects the Data-Out of a write (RFC 7143 §3.2.4.2), or submits at once. */
    private void startData(Task t, CommandArgs c) {
        List<DataOut> early;
        synchronized (t) {
            int edtl = c.edtl;
            int immediate = c.dataLength;
            if (!c.write || edtl <= 0) {
                submit(t, 0);
                return;
            }
            if (immediate > 0 && !params.immediateData()) { // RFC 7143 §13.11: immediate data not negotiated
                ByteBuffer header = c.header();
                t.state = Task.WAITING_DATA; // not started: end it as one that waits for data
                abortTask(t);
                conn.reject(RejectReason.PROTOCOL_ERROR, header);
                return;
            }
            ByteBuffer buf = t.cmd.dataOutBuffer(edtl);
            t.dataOut = buf;
            int take = Math.min(immediate, edtl);
            if (take > 0) {
                buf.put(0, c.data, c.dataAt, take);
            }
            t.writes.start(edtl, take, c.fin, params.initialR2t(), params.firstBurstLength(),
                    params.maxBurstLength(), params.maxOutstandingR2t());
            if (t.writes.complete()) {
                submit(t, edtl);
                return;
            }
            t.state = Task.WAITING_DATA;
            early = session.takeEarlyData(t.itt);
            if (early == null) {
                sendR2ts(t);
                return;
            }
        }
        for (DataOut d : early) { // data that arrived while the command waited for its CmdSN
            dataOut(d.initiatorTaskTag(), d.targetTransferTag(), d.dataSn(), d.bufferOffset(), d.fin(), d.data(),
                    d.data().position(), d.data().remaining(), d, null);
        }
        synchronized (t) {
            if (t.state == Task.WAITING_DATA && t.itt == c.itt) {
                sendR2ts(t);
            }
        }
    }

    private void sendR2ts(Task t) {
        int[] out = conn.onReaderThread() ? r2tOut : new int[2];
        while (true) {
            int ttt = nextTtt.getAndIncrement();
            if (ttt == Codes.RESERVED_TAG) {
                ttt = nextTtt.getAndIncrement();
            }
            int sn = t.writes.nextR2t(ttt, out);
            if (sn < 0) {
                if (Connection.TRACE) {
                    Connection.LOG.info("no R2T for itt " + t.itt + ": received " + t.writes.received()
                            + " unsolicitedOpen " + t.writes.unsolicitedOpen() + " params " + params);
                }
                return;
            }
            t.r2tCount++;
            conn.writer.r2t(t, ttt, sn, out[0], out[1], session);
        }
    }

    private void dataOut(int itt, int ttt, int dataSn, int bufferOffset, boolean fin, ByteBuffer data, int dataAt,
            int len, DataOut record, HotPdu view) {
        Task t;
        synchronized (tasks) {
            t = tasks.get(itt);
        }
        if (t == null) {
            // Unsolicited data of a command still held for CmdSN order (MC/S) is kept for it; anything else is
            // late data of a task already ended (aborted or failed) and is discarded.
            if (session.holdingCommands()) {
                session.stashEarlyData(itt, view != null ? (DataOut) view.toRecord() : (DataOut) PduCopies.detach(record));
            }
            return;
        }
        synchronized (t) { // the owner's reader and a thread running a reordered command may both touch t
            if (t.state != Task.WAITING_DATA || t.itt != itt) {
                return;
            }
            int verdict = t.writes.onDataOut(ttt, dataSn, bufferOffset, len, fin);
            if (verdict == WriteSequence.PROTOCOL_ERROR) {
                // A Data-Out out of sequence (DataSN, offset, TTT): Reject it (RFC 7143 §11.17) and end its task
                // with the iSCSI response "Target Failure" (§11.4.3) so nothing partial is written; the connection
                // and the other tasks go on, and the task's later Data-Out PDUs are discarded.
                conn.reject(RejectReason.PROTOCOL_ERROR, view != null ? view.copyHeader() : headerOf(record));
                failTask(t);
                return;
            }
            t.dataOut.put(bufferOffset, data, dataAt, len);
            if (verdict == WriteSequence.DONE) {
                submit(t, t.expectedLength);
            } else {
                sendR2ts(t);
            }
        }
    }

    private static ByteBuffer headerOf(Pdu p) {
        ByteBuffer header = ByteBuffer.allocate(Bhs.LENGTH);
        p.writeBhs(header, 0);
        return header;
    }

    private void submit(Task t, int received) {
        if (t.dataOut != null) {
            t.dataOut.limit(received).position(0); // the core reads position..limit
        }
        t.state = Task.SUBMITTED;
        session.core.submit(t.cmd); // may complete before it returns (RAM): see completed()
    }

    /** Sends the command's response and frees its task; exactly once per command, on the completing thread. */
    void completed(Task t) {
        synchronized (tasks) {
            tasks.remove(t.itt);
        }
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
        synchronized (tasks) {
            freeTasks.push(t);
        }
    }

    /** Ends a task that never reached the core with a Target Failure response (no SCSI status, no sense). */
    private void failTask(Task t) { // called holding t's monitor
        boolean mine;
        synchronized (tasks) {
            mine = tasks.remove(t.itt) == t;
        }
        if (!mine) {
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
            synchronized (tasks) {
                mine = t.state == Task.WAITING_DATA && tasks.get(t.itt) == t;
                if (mine) {
                    tasks.remove(t.itt);
                }
            }
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
        java.util.List<Task> waiting = new java.util.ArrayList<>();
        synchronized (tasks) {
            tasks.forEach(t -> {
                if (t.state == Task.WAITING_DATA) {
                    waiting.add(t);
                }
            });
        }
        for (Task t : waiting) {
            abortTask(t);
        }
    }

    /** Tasks of this connection waiting for Data-Out that {@code match} selects, for TMFs of other nexuses. */
    java.util.List<Task> waitingTasks(java.util.function.Predicate<Task> match) {
        java.util.List<Task> out = new java.util.ArrayList<>();
        synchronized (tasks) {
            tasks.forEach(t -> {
                if (t.state == Task.WAITING_DATA && match.test(t)) {
                    out.add(t);
                }
            });
        }
        return out;
    }

    /** Tasks of this connection waiting for Data-Out on {@code lun} (or all when lun is -1), for TMFs. */
    java.util.List<Task> waitingTasks(long lun, int itt, boolean byItt) {
        java.util.List<Task> out = new java.util.ArrayList<>();
        synchronized (tasks) {
            tasks.forEach(t -> {
                if (t.state == Task.WAITING_DATA && (byItt ? t.itt == itt : lun == -1 || t.lun == lun)) {
                    out.add(t);
                }
            });
        }
        return out;
    }

    boolean hasTask(int itt) {
        synchronized (tasks) {
            return tasks.get(itt) != null;
        }
    }

    void reject(RejectReason reason, Pdu p) {
        ByteBuffer header = ByteBuffer.allocate(Bhs.LENGTH);
        p.writeBhs(header, 0);
        conn.reject(reason, header);
    }

    /** NOP-In answering a ping, RFC 7143 §11.19: same ITT, TTT reserved, the ping data echoed. */
    void nopIn(NopOut n) {
        ByteBuffer echo = PduCopies.copy(n.data());
        conn.writer.send(sn -> new NopIn(n.lun(), n.initiatorTaskTag(), Codes.RESERVED_TAG, sn, session.expCmdSn(),
                session.maxCmdSn(), echo), true);
    }
}
