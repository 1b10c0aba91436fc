package io.hostwide.iscsi.initiator;

import io.hostwide.iscsi.login.NegotiatedParameters;
import io.hostwide.iscsi.pdu.DecodeError;
import io.hostwide.iscsi.pdu.Pdu;
import io.hostwide.scsi.mid.ScsiCmnd;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One connection of the session in full feature phase: a hardware queue of the SCSI host. Senders (queuecommand
 * threads, and this connection's reader for R2T answers and NOP-Out replies) serialise on the send lock; one reader
 * thread decodes target PDUs and hands them to {@link TargetPduHandler}. Any I/O error, bad PDU or unexpected
 * exception while reading ends in {@link InitiatorSession#connectionFailed}, never in an exception escaping.
 */
final class IscsiConnection implements PduChannel.Placement {
    final int cid;
    /** The session generation this connection belongs to; failures of older generations are ignored. */
    final int generation;
    final NegotiatedParameters params;
    /** The session's command window (shared by every connection of this generation). */
    final SessionWindow window;
    private final PduChannel ch;
    private final InitiatorSession session;
    private final ReentrantLock sendLock = new ReentrantLock();
    /** Sense bytes copied out of a SCSI Response (reader thread only). */
    final byte[] senseScratch = new byte[ScsiCmnd.SENSE_BUFFERSIZE];
    /**
     * StatSN + 1 of the last status seen (RFC 7143 §4.2.2.2), sent as ExpStatSN. Written by the reader only;
     * volatile so senders read a recent value (plain acknowledgement, no ordering needed beyond that).
     */
    private volatile int expStatSn;
    private volatile boolean closed;
    /** System.nanoTime() of the last PDU read (reader writes, keepalive reads; a recent value is enough). */
    private volatile long lastRx = System.nanoTime();
    /** Keepalive thread only: when the outstanding ping went out, or 0. */
    long pingSentAt;
    private Thread reader;
    /** The task whose buffer a placed Data-In is being read into, between begin and end (reader thread only). */
    private IscsiTask placing;
    private int placingItt;
    private int placingAt;

    IscsiConnection(InitiatorSession session, PduChannel ch, int cid, int generation, NegotiatedParameters params,
                    int statSn, SessionWindow window) {
        this.session = session;
        this.window = window;
        this.ch = ch;
        this.cid = cid;
        this.generation = generation;
        this.params = params;
        this.expStatSn = statSn + 1;
    }

    // PduChannel.Placement, on the reader thread: the same checks and the same copy guard (IscsiTask#beginCopy) as
    // the Data-In handler's copy, held for the read of the segment.
    @Override
    public boolean begin(int itt, long bufferOffset, int length) {
        IscsiTask t = session.handler().liveTask(itt);
        if (t == null || t.cmd.dataDirection() != ScsiCmnd.DIR_FROM_DEVICE
                || bufferOffset + length > t.cmd.transferLength() || !t.beginCopy(itt)) {
            return false;
        }
        placing = t;
        placingItt = itt;
        placingAt = t.cmd.bufferPosition() + (int) bufferOffset;
        return true;
    }

    @Override
    public ByteBuffer target() {
        return placing.cmd.buffer();
    }

    @Override
    public int targetAt() {
        return placingAt;
    }

    @Override
    public void end() {
        placing.endCopy();
        placing = null;
    }

    void start(String name) {
        ch.placement(this);
        reader = new Thread(this::readLoop, name);
        reader.setDaemon(true);
        reader.start();
    }

    int expStatSn() {
        return expStatSn;
    }

    /** RFC 7143 §4.2.2.2: a PDU carrying status with StatSN s acknowledges up to s. */
    void statSn(int s) {
        if (!SessionWindow.lt(s + 1, expStatSn)) {
            expStatSn = s + 1;
        }
    }

    /** Sends PDUs back to back under the send lock. */
    void send(Pdu pdu) throws IOException {
        sendLock.lock();
        try {
            ch.send(pdu);
        } finally {
            sendLock.unlock();
        }
    }

    void lockSend() {
        sendLock.lock();
    }

    void unlockSend() {
        sendLock.unlock();
    }

    /** Sends while the caller holds {@link #lockSend()}. */
    void sendLocked(Pdu pdu) throws IOException {
        ch.send(pdu);
    }

    /** {@link PduChannel#beginHot}: where the next hot frame's BHS goes; only under {@link #lockSend()}. */
    int beginHotLocked(int dataLength) throws IOException {
        return ch.beginHot(dataLength);
    }

    /** {@link PduChannel#sendBuffer()}; only under {@link #lockSend()}. */
    ByteBuffer sendBufferLocked() {
        return ch.sendBuffer();
    }

    /** {@link PduChannel#sendHot}; only under {@link #lockSend()}. */
    void sendHotLocked(int base, ByteBuffer src, int from, int length, boolean flush) throws IOException {
        ch.sendHot(base, src, from, length, flush);
    }

    /**
     * Writes the frames held back for a batch ({@code commit_rqs}). Any send with flush, by any thread, writes them
     * too: the buffer is one FIFO under the send lock, so PDUs leave in the order they were queued.
     */
    void commit() throws IOException {
        sendLock.lock();
        try {
            ch.flush();
        } finally {
            sendLock.unlock();
        }
    }

    private void readLoop() {
        TargetPduHandler handler = session.handler();
        try {
            while (!closed) {
                String problem;
                boolean hot = ch.next();
                lastRx = System.nanoTime();
                if (hot) {
                    problem = handler.handleHot(this, ch.frame(), ch.frameAt(), ch.placed() ? -1 : ch.hotDataAt(),
                            ch.hotDataLength());
                } else if (ch.decoded() instanceof DecodeError e) {
                    session.connectionFailed(this, "bad PDU from the target: " + e.detail());
                    return;
                } else {
                    problem = handler.handle(this, (Pdu) ch.decoded());
                }
                if (problem != null) {
                    session.connectionFailed(this, problem);
                    return;
                }
            }
        } catch (IOException e) {
            if (!closed) {
                session.connectionFailed(this, "connection " + cid + ": " + e.getMessage());
            }
        } catch (RuntimeException e) {
            session.connectionFailed(this, "connection " + cid + ": internal error " + e);
        }
    }

    long lastRx() {
        return lastRx;
    }

    boolean isClosed() {
        return closed;
    }

    void close() {
        closed = true;
        ch.close();
    }
}
