package io.hostwide.iscsi.server;

import io.hostwide.iscsi.pdu.Pdu;
import io.hostwide.iscsi.pdu.PduEncoder;
import io.hostwide.iscsi.pdu.ResponseHeaders;
import io.hostwide.iscsi.spec.Bhs;
import io.hostwide.iscsi.spec.Codes;
import io.hostwide.iscsi.spec.Flags;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.target.TargetCommand;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A connection's outgoing side: responses are encoded straight into one pooled direct buffer and written with one
 * write per batch. The reader thread appends while it drains the receive buffer and flushes once before it blocks
 * again; a completion on another thread (file backstores) appends and flushes itself. StatSN is assigned here, in
 * send order (RFC 7143 §3.2.2.2: StatSN per connection).
 */
final class ResponseWriter {
    /** Largest Data-In segment we send even if the initiator accepts more: keeps one PDU well inside the buffer. */
    static final int MAX_SEGMENT = 256 * 1024;
    private static final int HEADROOM = Bhs.LENGTH + 2 * Codes.DIGEST_LENGTH + 4;

    private final ReentrantLock lock = new ReentrantLock();
    private final SocketChannel channel;
    private final ByteBuffer out;
    private PduEncoder encoder = new PduEncoder(false, false);
    private int statSn;
    private int maxSegment = 8192;
    private int maxBurst = 262144;
    private boolean broken;
    private boolean retired;

    ResponseWriter(SocketChannel channel, ByteBuffer sendBuffer) {
        this.channel = channel;
        this.out = sendBuffer;
    }

    /** Switches to the full feature phase settings (digests start after the last Login Response, RFC 7143 §13.1). */
    void enterFullFeature(boolean headerDigest, boolean dataDigest, int initiatorMaxRecv, int maxBurstLength,
            int nextStatSn) {
        lock.lock();
        try {
            encoder = new PduEncoder(headerDigest, dataDigest);
            maxSegment = Math.min(initiatorMaxRecv, MAX_SEGMENT);
            maxBurst = maxBurstLength;
            statSn = nextStatSn;
        } finally {
            lock.unlock();
        }
    }

    /** A PDU built from the StatSN it must carry (the writer's next, under the lock). */
    interface Builder {
        Pdu build(int statSn);
    }

    /** Encodes a control PDU; {@code advance} when it consumes a StatSN (responses do; R2T, Reject and Async do not). */
    void send(Builder b, boolean advance) {
        lock.lock();
        try {
            if (retired) {
                return;
            }
            Pdu p = b.build(statSn);
            if (advance) {
                statSn++;
            }
            int need = encoder.encodedLength(p);
            room(need);
            encoder.encode(p, out);
        } finally {
            lock.unlock();
        }
    }

    /** Encodes a PDU exactly as given (login responses carry the login machine's StatSN). */
    void sendAsIs(Pdu p) {
        send(sn -> p, false);
    }

    /** R2T, RFC 7143 §11.8: carries the next StatSN without consuming it. */
    void r2t(Task t, int ttt, int r2tSn, int offset, int length, IscsiSession s) {
        lock.lock();
        try {
            if (retired) {
                return;
            }
            room(HEADROOM);
            int at = out.position();
            ResponseHeaders.r2t(out, at, t.lun, t.itt, ttt, statSn, s.expCmdSn(), s.maxCmdSn(), r2tSn, offset,
                    length);
            if (Connection.TRACE) {
                Connection.LOG.info("-> R2T itt " + t.itt + " ttt " + ttt + " sn " + r2tSn + " " + offset + "+" + length);
            }
            out.position(encoder.sealHeader(out, at, 0));
        } finally {
            lock.unlock();
        }
    }

    /**
     * Data-In and status of a completed command (RFC 7143 §11.7, §11.4): Data-In segments within the initiator's
     * MaxRecvDataSegmentLength, F at each MaxBurstLength boundary, and the status collapsed into the last Data-In
     * when it is GOOD without sense (phase collapse, §11.7.3); otherwise a SCSI Response follows.
     */
    void completion(Task t, IscsiSession s) {
        TargetCommand cmd = t.cmd;
        int status = cmd.status();
        int senseLength = cmd.senseLength();
        ByteBuffer din = cmd.dataIn();
        int n = din == null ? 0 : din.limit();
        int kind = cmd.residualKind();
        int residualFlags = kind == TargetCommand.RESIDUAL_OVERFLOW ? Flags.SCSI_RESPONSE_OVERFLOW
                : kind == TargetCommand.RESIDUAL_UNDERFLOW ? Flags.SCSI_RESPONSE_UNDERFLOW : 0;
        int residual = kind == TargetCommand.RESIDUAL_NONE ? 0 : cmd.residualCount();
        boolean collapse = n > 0 && status == 0 && senseLength == 0;
        lock.lock();
        try {
            if (retired) {
                return;
            }
            int burst = 0;
            for (int off = 0; off < n; ) {
                int len = Math.min(maxSegment, n - off);
                boolean last = off + len == n;
                burst += len;
                int flags = last || burst >= maxBurst ? Flags.FINAL : 0;
                if (burst >= maxBurst) {
                    burst = 0;
                }
                int sn = 0;
                if (last && collapse) {
                    flags |= Flags.DATA_IN_STATUS | residualFlags; // O and U sit at the same bits in Data-In
                    sn = statSn++;
                }
                room(HEADROOM + len + 3);
                int at = out.position();
                ResponseHeaders.dataIn(out, at, flags, last && collapse ? status : 0, 0, t.itt, Codes.RESERVED_TAG,
                        sn, s.expCmdSn(), s.maxCmdSn(), t.dataInSn++, off, last && collapse ? residual : 0, len);
                out.position(encoder.sealHeader(out, at, 0));
                encoder.appendData(out, din, off, len);
                off += len;
            }
            if (!collapse) {
                scsiResponse(t, s, status, residualFlags, residual, cmd.senseBuffer(), senseLength);
            }
        } finally {
            lock.unlock();
        }
    }

    /** SCSI Response with Response = Target Failure (RFC 7143 §11.4.3): the task ended in the transport. */
    void targetFailure(Task t, IscsiSession s) {
        lock.lock();
        try {
            if (retired) {
                return;
            }
            room(HEADROOM);
            int at = out.position();
            ResponseHeaders.scsiResponse(out, at, 0, Codes.TARGET_FAILURE, 0, t.itt, statSn++, s.expCmdSn(),
                    s.maxCmdSn(), t.dataInSn + t.r2tCount, 0, 0, 0);
            out.position(encoder.sealHeader(out, at, 0));
        } finally {
            lock.unlock();
        }
    }

    /**
     * SCSI Response with status TASK ABORTED and no data (SAM-5 §5.3.1, TAS = 1 in the control mode page): a task
     * of this session that another I_T nexus's task management function aborted while it still waited for Data-Out.
     */
    void taskAborted(Task t, IscsiSession s) {
        lock.lock();
        try {
            if (retired) {
                return;
            }
            scsiResponse(t, s, ScsiStatus.TASK_ABORTED, 0, 0, null, 0);
        } finally {
            lock.unlock();
        }
    }

    private void scsiResponse(Task t, IscsiSession s, int status, int residualFlags, int residual, byte[] sense,
            int senseLength) {
        int dsl = senseLength > 0 ? senseLength + 2 : 0; // SenseLength field + sense data, RFC 7143 §11.4.7
        room(HEADROOM + dsl + 3);
        int at = out.position();
        ResponseHeaders.scsiResponse(out, at, residualFlags, Codes.COMMAND_COMPLETED_AT_TARGET, status, t.itt,
                statSn++, s.expCmdSn(), s.maxCmdSn(), t.dataInSn + t.r2tCount, 0, residual, dsl);
        int data = encoder.sealHeader(out, at, 0);
        if (dsl > 0) {
            out.putShort(data, (short) senseLength);
            out.put(data + 2, sense, 0, senseLength);
        }
        encoder.finishData(out, data, dsl);
    }

    boolean pending() {
        lock.lock();
        try {
            return out.position() > 0;
        } finally {
            lock.unlock();
        }
    }

    /** Writes everything encoded so far. A write failure marks the writer broken; the reader then closes. */
    void flush() {
        lock.lock();
        try {
            flushLocked();
        } finally {
            lock.unlock();
        }
    }

    boolean broken() {
        return broken;
    }

    private void room(int need) {
        if (out.remaining() < need) {
            flushLocked();
        }
    }

    /**
     * Stops all further encoding and flushing, so that the send buffer can go back to the pool even while a
     * completion on another thread is about to answer a command of this (closed) connection.
     */
    void retire() {
        lock.lock();
        try {
            retired = true;
            out.clear();
        } finally {
            lock.unlock();
        }
    }

    private void flushLocked() {
        if (retired || out.position() == 0) {
            return;
        }
        out.flip();
        try {
            while (out.hasRemaining() && !broken) {
                channel.write(out);
            }
        } catch (IOException e) {
            broken = true;
        }
        out.clear();
    }
}
