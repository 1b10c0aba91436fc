package io.hostwide.iscsi.server;

import io.hostwide.iscsi.pdu.Pdu;
import io.hostwide.iscsi.pdu.PduEncoder;
import io.hostwide.iscsi.pdu.ResponseHeaders;
import io.hostwide.iscsi.spec.Bhs;
import io.hostwide.iscsi.spec.Codes;
import io.hostwide.iscsi.spec.Flags;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.tcm.spi.TargetCommand;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A connection's outgoing side: responses are encoded straight into one pooled direct buffer and written with one
 * gathering write per batch. The reader thread appends while it drains the receive buffer and flushes once before it
 * blocks again; a completion on another thread (file backstores) appends and flushes itself. StatSN is assigned
 * here, in send order (RFC 7143 §3.2.2.2: StatSN per connection).
 *
 * <p>Data-In segments of at least {@link #GATHER_MIN} bytes are not copied: their header, and after it the padding
 * and data digest, go into the send buffer, and the flush writes the command's own Data-In buffer between those
 * pieces (up to {@link #MAX_SLICES} such slices per write). The command is then held, not released, until the
 * flush has written it; the arrays describing a batch are allocated once per connection. A buffer appears at most
 * once per write (its position and limit frame the slice), so a second segment of the same command flushes first.
 * Everything here runs under {@code lock}.
 */
final class ResponseWriter {
    /** Largest Data-In segment we send even if the initiator accepts more: keeps one PDU well inside the buffer. */
    static final int MAX_SEGMENT = 256 * 1024;
    private static final int HEADROOM = Bhs.LENGTH + 2 * Codes.DIGEST_LENGTH + 4;
    /** Data-In segments this large go out from the command's buffer; smaller ones are copied and batched. */
    static final int GATHER_MIN = 16 * 1024;
    /** Data slices per gathering write. */
    static final int MAX_SLICES = 32;

    private final ReentrantLock lock = new ReentrantLock();
    private final SocketChannel channel;
    /** The send buffer: a small one during login, a full-size one after ({@link #useBuffer}); under the lock. */
    private ByteBuffer out;
    private PduEncoder encoder = new PduEncoder(false, false);
    private int statSn;
    private int maxSegment = 8192;
    private int maxBurst = 262144;
    private boolean broken;
    private boolean retired;

    // The batch's slices: slice k is written after out[.., sliceAt[k]) and before out[sliceAt[k], ..).
    private final ByteBuffer[] slices = new ByteBuffer[MAX_SLICES];
    private final int[] sliceFrom = new int[MAX_SLICES];
    private final int[] sliceLength = new int[MAX_SLICES];
    private final int[] sliceAt = new int[MAX_SLICES];
    private final int[] slicePosition = new int[MAX_SLICES];
    private final int[] sliceLimit = new int[MAX_SLICES];
    private int sliceCount;
    /** Views of the send buffer, one per region between slices, and the write's source array. */
    private final ByteBuffer[] outViews = new ByteBuffer[MAX_SLICES + 1];
    private final ByteBuffer[] sources = new ByteBuffer[2 * MAX_SLICES + 1];
    /** Tasks whose Data-In buffers the batch refers to: released once written (or when the writer retires). */
    private final Task[] held = new Task[MAX_SLICES];
    private int heldCount;
    /** The task {@link #completion} is encoding: a flush in its middle must not release it yet. */
    private Task completing;
    private java.util.function.Consumer<Task> release = t -> { };

    ResponseWriter(SocketChannel channel, ByteBuffer sendBuffer) {
        this.channel = channel;
        this.out = sendBuffer;
        for (int i = 0; i < outViews.length; i++) {
            outViews[i] = sendBuffer.duplicate();
        }
    }

    /**
     * Flushes what is encoded and continues in {@code next}; returns the previous buffer, empty, for its pool. The
     * login thread moves a connection to its full-size buffer this way; no Data-In slice can be pending then (there
     * is no command before the full feature phase).
     */
    ByteBuffer useBuffer(ByteBuffer next) {
        lock.lock();
        try {
            flushLocked();
            ByteBuffer previous = out;
            out = next;
            for (int i = 0; i < outViews.length; i++) {
                outViews[i] = next.duplicate();
            }
            return previous.clear();
        } finally {
            lock.unlock();
        }
    }

    /** Where tasks held for a gathering write go once it is written (the full feature phase's task pool). */
    void releaseTasksTo(java.util.function.Consumer<Task> releaser) {
        lock.lock();
        try {
            release = releaser;
        } finally {
            lock.unlock();
        }
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

    /** The initiator redeclared its MaxRecvDataSegmentLength in the full feature phase (RFC 7143 §13.12). */
    void maxRecvDataSegmentLength(int initiatorMaxRecv) {
        lock.lock();
        try {
            maxSegment = Math.min(initiatorMaxRecv, MAX_SEGMENT);
        } finally {
            lock.unlock();
        }
    }

    /** A PDU built from the StatSN it must carry (the writer's next, under the lock). */
    interface Builder {
        Pdu build(int statSn);
    }

    /**
     * Encodes a control PDU; {@code advance} when it consumes a StatSN: responses and Asynchronous Messages do
     * (initiators take ExpStatSN = its StatSN + 1 from an Async Message, as open-iscsi does); R2T and Reject do not.
     */
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
     *
     * @return true when the task is held for a gathering write: the writer releases it after the flush; false when
     *     the caller releases it now
     */
    boolean completion(Task t, IscsiSession s) {
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
                return false;
            }
            completing = t;
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
                boolean gather = len >= GATHER_MIN;
                if (gather && (sliceCount == MAX_SLICES || sliceCount > 0 && slices[sliceCount - 1] == din)) {
                    flushLocked(); // no room for a slice, or din already framed in this write
                }
                room(HEADROOM + (gather ? 0 : len + 3));
                int at = out.position();
                ResponseHeaders.dataIn(out, at, flags, last && collapse ? status : 0, 0, t.itt, Codes.RESERVED_TAG,
                        sn, s.expCmdSn(), s.maxCmdSn(), t.dataInSn++, off, last && collapse ? residual : 0, len);
                out.position(encoder.sealHeader(out, at, 0));
                if (gather) {
                    slice(t, din, off, len);
                } else {
                    encoder.appendData(out, din, off, len);
                }
                off += len;
            }
            if (!collapse) {
                scsiResponse(t, s, status, residualFlags, residual, cmd.senseBuffer(), senseLength);
            }
            return heldCount > 0 && held[heldCount - 1] == t;
        } finally {
            completing = null;
            lock.unlock();
        }
    }

    /** Records a slice of {@code din} to write after what the send buffer holds now, then its padding and digest. */
    private void slice(Task t, ByteBuffer din, int from, int length) {
        int k = sliceCount++;
        slices[k] = din;
        sliceFrom[k] = from;
        sliceLength[k] = length;
        sliceAt[k] = out.position();
        encoder.appendTrailer(out, din, from, length);
        if (heldCount == 0 || held[heldCount - 1] != t) {
            held[heldCount++] = t;
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

    /**
     * A SCSI Response for a task the core never saw (refused by this fabric before its data was collected):
     * {@code status}, with {@code sense} when it is CHECK CONDITION.
     */
    void refused(Task t, IscsiSession s, int status, byte[] sense, int senseLength) {
        lock.lock();
        try {
            if (retired) {
                return;
            }
            scsiResponse(t, s, status, 0, 0, sense, senseLength);
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
            return out.position() > 0 || sliceCount > 0;
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
     * completion on another thread is about to answer a command of this (closed) connection. Tasks held for an
     * unwritten gathering write are released here.
     */
    void retire() {
        lock.lock();
        try {
            retired = true;
            out.clear();
            java.util.Arrays.fill(slices, 0, sliceCount, null);
            sliceCount = 0;
            releaseHeld();
        } finally {
            lock.unlock();
        }
    }

    private void flushLocked() {
        if (retired || out.position() == 0) {
            return;
        }
        try {
            if (sliceCount == 0) {
                out.flip();
                while (out.hasRemaining() && !broken) {
                    channel.write(out);
                }
            } else {
                writeGathered();
            }
        } catch (IOException e) {
            broken = true;
        }
        out.clear();
        sliceCount = 0;
        releaseHeld();
    }

    /**
     * One gathering write of the send buffer's regions with the slices between them. Each slice's buffer is framed
     * by its position and limit for the write and gets its own back afterwards (its command may still be encoding
     * further segments from it with absolute reads, which check the limit).
     */
    private void writeGathered() throws IOException {
        int n = 0;
        int from = 0;
        for (int k = 0; k < sliceCount; k++) {
            int at = sliceAt[k];
            sources[n++] = outViews[k].clear().position(from).limit(at);
            ByteBuffer d = slices[k];
            slicePosition[k] = d.position();
            sliceLimit[k] = d.limit();
            sources[n++] = d.clear().position(sliceFrom[k]).limit(sliceFrom[k] + sliceLength[k]);
            from = at;
        }
        if (out.position() > from) {
            sources[n++] = outViews[sliceCount].clear().position(from).limit(out.position());
        }
        try {
            int first = 0;
            while (first < n && !broken) {
                channel.write(sources, first, n - first);
                while (first < n && !sources[first].hasRemaining()) {
                    first++;
                }
            }
        } finally {
            java.util.Arrays.fill(sources, 0, n, null);
            for (int k = 0; k < sliceCount; k++) {
                slices[k].limit(sliceLimit[k]).position(slicePosition[k]);
                slices[k] = null;
            }
        }
    }

    /** Gives back the tasks whose buffers the last write used, except the one being encoded right now. */
    private void releaseHeld() {
        int keep = 0;
        for (int i = 0; i < heldCount; i++) {
            Task t = held[i];
            held[i] = null;
            if (t == completing) {
                held[keep++] = t;
            } else {
                release.accept(t);
            }
        }
        heldCount = keep;
    }
}
