package io.hostwide.iscsi.server;

import io.hostwide.iscsi.pdu.DataOut;
import io.hostwide.iscsi.pdu.HotPdu;
import io.hostwide.iscsi.pdu.Pdu;
import io.hostwide.iscsi.spec.Bhs;
import io.hostwide.iscsi.spec.Codes;
import io.hostwide.iscsi.spec.RejectReason;
import io.hostwide.scsi.spec.Asc;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.tcm.spi.Sense;
import io.hostwide.tcm.spi.SenseReason;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;

/**
 * A connection's write data, RFC 7143 §3.2.4.2: takes a write command's immediate data, accepts unsolicited and
 * R2T-solicited Data-Out (§11.7) into the core's buffer, sends R2Ts (§11.8) with fresh Target Transfer Tags as the
 * task's {@link WriteSequence} allows, and submits the command to the core once every byte is in. A Data-Out out of
 * sequence is rejected and its task ends with Target Failure. Runs on the connection's reader thread, and on the
 * thread that runs a command reordered behind a CmdSN gap (MC/S); a task's monitor orders the two.
 */
final class R2tSequencer {
    private final FullFeature ffp;
    /** Reader-thread scratch for {@link WriteSequence#nextR2t}: {offset, length}. */
    private final int[] r2tOut = new int[2];
    private final AtomicInteger nextTtt = new AtomicInteger(1);

    R2tSequencer(FullFeature ffp) {
        this.ffp = ffp;
    }

    /** Collects the Data-Out of a write (RFC 7143 §3.2.4.2), or submits at once. */
    void start(Task t, CommandArgs c) {
        List<DataOut> early;
        synchronized (t) {
            int edtl = c.edtl;
            int immediate = c.dataLength;
            if (!c.write || edtl <= 0) {
                submit(t, 0);
                return;
            }
            if (immediate > 0 && !ffp.params.immediateData()) { // RFC 7143 §13.11: immediate data not negotiated
                ByteBuffer header = c.header();
                t.state = Task.WAITING_DATA; // not started: end it as one that waits for data
                ffp.abortTask(t);
                ffp.conn.reject(RejectReason.PROTOCOL_ERROR, header);
                return;
            }
            if (edtl > ffp.session.core.maxDataOut(c.lun)) {
                // More data than any command to this LUN can carry (its MAXIMUM TRANSFER LENGTH): refused before a
                // buffer of that size exists, as the core would refuse the CDB (SBC-4 §6.6.4), and as LIO does.
                byte[] sense = new byte[Sense.MAX_LENGTH];
                int n = Sense.encode(sense, SenseReason.INVALID_FIELD_IN_CDB, Asc.INVALID_FIELD_IN_CDB, false);
                ffp.refuseTask(t, ScsiStatus.CHECK_CONDITION, sense, n);
                return;
            }
            ByteBuffer buf;
            try {
                buf = t.cmd.dataOutBuffer(edtl);
            } catch (OutOfMemoryError e) {
                // Direct memory at its limit even after a collection: this command waits for memory like one
                // that found the task set full (SAM-5 §5.3.3); the initiator retries it and lowers its queue
                // depth, and no other command or session is touched.
                Connection.LOG.log(Level.FINE, "no memory for a " + edtl + "-byte Data-Out: TASK SET FULL", e);
                ffp.refuseTask(t, ScsiStatus.TASK_SET_FULL, null, 0);
                return;
            }
            t.dataOut = buf;
            int take = Math.min(immediate, edtl);
            if (take > 0) {
                buf.put(0, c.data, c.dataAt, take);
            }
            t.writes.start(edtl, take, c.fin, ffp.params.initialR2t(), ffp.params.firstBurstLength(),
                    ffp.params.maxBurstLength(), ffp.params.maxOutstandingR2t());
            if (t.writes.complete()) {
                submit(t, edtl);
                return;
            }
            t.state = Task.WAITING_DATA;
            early = ffp.session.takeEarlyData(t.itt);
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
        Connection conn = ffp.conn;
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
                            + " unsolicitedOpen " + t.writes.unsolicitedOpen() + " params " + ffp.params);
                }
                return;
            }
            t.r2tCount++;
            conn.writer.r2t(t, ttt, sn, out[0], out[1], ffp.session);
        }
    }

    /**
     * One Data-Out, from a record ({@code record}) or from the receive-buffer flyweight ({@code view}); never
     * CmdSN-ordered (RFC 7143 §3.2.2.1).
     */
    void dataOut(int itt, int ttt, int dataSn, int bufferOffset, boolean fin, ByteBuffer data, int dataAt,
            int len, DataOut record, HotPdu view) {
        Task t = ffp.tasks.get(itt);
        if (t == null) {
            // Unsolicited data of a command still held for CmdSN order (MC/S) is kept for it; anything else is
            // late data of a task already ended (aborted or failed) and is discarded.
            if (ffp.session.holdingCommands()) {
                ffp.session.stashEarlyData(itt,
                        view != null ? (DataOut) view.toRecord() : (DataOut) PduCopies.detach(record));
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
                ffp.conn.reject(RejectReason.PROTOCOL_ERROR, view != null ? view.copyHeader() : headerOf(record));
                ffp.failTask(t);
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
        ffp.session.core.submit(t.cmd); // may complete before it returns (RAM): see FullFeature.completed
    }
}
