package io.hostwide.iscsi.initiator;

import io.hostwide.iscsi.login.NegotiatedParameters;
import io.hostwide.iscsi.pdu.DecodeError;
import io.hostwide.iscsi.pdu.Pdu;
import io.hostwide.iscsi.spec.Bhs;
import io.hostwide.iscsi.spec.Flags;
import io.hostwide.iscsi.spec.Opcode;
import io.hostwide.scsi.mid.ScsiCmnd;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One connection of the session in full feature phase: a hardware queue of the SCSI host. Senders (queuecommand
 * threads, and whoever receives, for R2T answers and NOP-Out replies) serialise on the send lock. Receiving — reading
 * the socket, decoding target PDUs and handing them to {@link TargetPduHandler} — is done by the holder of the receive
 * lock: the connection's reader thread, or a submitting thread that polls for its completions ({@link #poll},
 * {@code mq_poll}; from the first poll on, before it the reader thread reads alone, blocked in {@code read(2)}). A
 * polled completion then costs one wake-up (the socket's, of the thread that waits for it) where
 * the reader thread costs two (the socket wakes the reader, the reader wakes the submitter). While threads poll, the
 * reader thread stands aside ({@link #PASSIVE_NANOS}); when they stop, it reads again, so a completion nobody polls
 * for (another job's, a task management response, a NOP-In) still arrives. Any I/O error, bad PDU or unexpected
 * exception while receiving ends in {@link InitiatorSession#connectionFailed}, never in an exception escaping.
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
    /**
     * Held by the one thread that receives (reads the socket and handles PDUs); tried, never waited for: a poller that
     * does not get it waits for its completion the ordinary way, and the reader thread re-checks after a park.
     */
    private final ReentrantLock rxLock = new ReentrantLock();
    /**
     * How long after the last poll the reader thread stays aside, and how long it parks between checks. Polling
     * threads come back after each completion (a few microseconds later at queue depth 1), so the reader wakes at most
     * every 2 ms while they poll, and at most 2 ms after the last poll (a thread that stopped polling with commands
     * of other submitters still outstanding) it reads again.
     */
    static final long PASSIVE_NANOS = 2_000_000L;
    /**
     * PDUs one poll handles at most before it returns to its caller, who re-issues what completed: under a steady
     * stream (queue depth 64) a poll would otherwise keep receiving while the caller's queue drains.
     */
    private static final int POLL_FRAMES = 32;
    /**
     * The last receive ended more than one task (receive lock holder only): completions are streaming in, so the next
     * receive tries a read before it waits. Counted in tasks, not PDUs: a 1 MiB read at queue depth 1 is four Data-In
     * PDUs and one completion, after which the socket is empty until the next command is answered, and a read
     * before the wait there was an {@code EAGAIN} per I/O.
     */
    private boolean busy;
    /** The PDU {@link #handleNext} just handled carried a task's status, or was not a Data-In (receiver only). */
    private boolean endedTask;
    /**
     * The socket is non-blocking and receiving goes by the receive lock (see {@link #readLoop}); false until the
     * first poll asks for it ({@link #pollRequested}): until then the reader thread reads as it always did, blocked in
     * {@code read(2)}, which costs one syscall per wait where the selector costs two.
     */
    private volatile boolean pollable;
    /** A thread polled while the connection was not {@link #pollable}: the reader switches after its next PDU. */
    private volatile boolean pollRequested;
    /** When a thread last polled (System.nanoTime(); pollers write, the reader thread reads: a recent value will do). */
    private volatile long lastPollNanos = System.nanoTime() - 2 * PASSIVE_NANOS;
    /** Sense bytes copied out of a SCSI Response (receive lock holder only). */
    final byte[] senseScratch = new byte[ScsiCmnd.SENSE_BUFFERSIZE];
    /**
     * StatSN + 1 of the last status seen (RFC 7143 §4.2.2.2), sent as ExpStatSN. Written by the receiver only;
     * volatile so senders read a recent value (plain acknowledgement, no ordering needed beyond that).
     */
    private volatile int expStatSn;
    private volatile boolean closed;
    /** System.nanoTime() of the last PDU read (reader writes, keepalive reads; a recent value is enough). */
    private volatile long lastRx = System.nanoTime();
    /** Keepalive thread only: when the outstanding ping went out, or 0. */
    long pingSentAt;
    private volatile Thread reader;
    /** The task whose buffer a placed Data-In is being read into, between begin and end (receiver only). */
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

    // PduChannel.Placement, on the receiving thread: the same checks and the same copy guard (IscsiTask#beginCopy) as
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

    /**
     * The reader thread: receives whenever no thread polls. It waits in the socket's selector without a time limit;
     * a poller that finds it there wakes it ({@link PduChannel#wakeupReader}), and it then parks until polling stops.
     */
    private void readLoop() {
        while (!closed) {
            if (!pollable) {
                if (!receiveBlocking()) {
                    return;
                }
                continue;
            }
            if (rxLock.isLocked() || System.nanoTime() - lastPollNanos < PASSIVE_NANOS) {
                LockSupport.parkNanos(this, PASSIVE_NANOS);   // a thread polls: stand aside
                continue;
            }
            if (!rxLock.tryLock()) {
                continue;
            }
            try {
                if (receiveLocked(0, Integer.MAX_VALUE) < 0) {
                    return;
                }
            } finally {
                rxLock.unlock();
            }
        }
    }

    /**
     * {@code mq_poll} for this connection: receives on the calling thread, waiting up to {@code timeoutNanos} (at
     * least a millisecond, the selector's unit) for the socket. Returns the PDUs handled (each completion among them
     * ran on this thread), 0 when the wait ran out or the connection was just handed over (the caller looks for its
     * completion, then polls again), -1 when the socket is not pollable yet, another thread kept receiving for the
     * whole timeout, or the connection is closed or failed: the caller then waits for its completion instead.
     *
     * <p>When another thread receives (the reader thread, back after a poller was off its core for longer than
     * {@link #PASSIVE_NANOS}, or another poller), it is woken out of the selector and this thread waits for the
     * receive lock: the hand-over costs that one wake-up. Returning -1 there instead left both threads asleep (the
     * reader standing aside for the poll that had just given up, the caller parked until the reader's next check):
     * a stall of up to {@link #PASSIVE_NANOS}, and the reader then took the socket back, so on a busy machine it
     * repeated for completion after completion.
     */
    int poll(long timeoutNanos) {
        if (!pollable) {
            // The reader thread owns the blocking socket: it switches to the selector after the PDU it waits for
            // (this caller's completion at the latest), and polls work from then on.
            pollRequested = true;
            return -1;
        }
        lastPollNanos = System.nanoTime();
        boolean handedOver = false;
        if (!rxLock.tryLock()) {
            ch.wakeupReader();   // the receiver waits in the selector: it returns, sees this poll and stands aside
            try {
                if (!rxLock.tryLock(Math.max(timeoutNanos, 1_000_000L), TimeUnit.NANOSECONDS)) {
                    return -1;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return -1;
            }
            handedOver = true;
        }
        try {
            if (closed) {
                return -1;
            }
            // Handed over: the receiver before may have taken in this caller's completion; it looks before a wait.
            return receiveLocked(handedOver ? NO_WAIT : Math.max(1, timeoutNanos / 1_000_000L), POLL_FRAMES);
        } finally {
            lastPollNanos = System.nanoTime();
            rxLock.unlock();
        }
    }

    /** {@link #receiveLocked}'s wait when the caller takes only what is buffered or readable now. */
    private static final long NO_WAIT = -1;

    /** True while a thread holds the receive lock (for tests: the reader thread waits in the selector). */
    boolean receiving() {
        return rxLock.isLocked();
    }

    /**
     * Under the receive lock: handles the frames buffered or readable now, up to {@code maxFrames} (the rest stay
     * buffered for the next receiver); when there are none, waits up to {@code waitMillis} (0: until readable or
     * woken; {@link #NO_WAIT}: not at all) and handles what came. A frame begun is always finished (its rest is on the
     * way). Returns the PDUs handled, or -1 once the connection failed (reported here) or closed.
     */
    private int receiveLocked(long waitMillis, int maxFrames) {
        try {
            // A busy connection (the last receive found several PDUs) likely has more: try a read before the wait,
            // one syscall instead of two. A quiet one (queue depth 1) has nothing yet: wait first.
            if (ch.buffered() == 0 && (!busy && waitMillis != NO_WAIT || ch.readNow() == 0)) {
                if (waitMillis == NO_WAIT) {
                    busy = false;
                    return 0;
                }
                ch.awaitReadable(waitMillis);
                if (closed || ch.readNow() == 0) {
                    busy = false;
                    return closed ? -1 : 0;
                }
            }
            int n = 0;
            int ended = 0;
            do {
                if (!handleNext()) {
                    return -1;
                }
                n++;
                if (endedTask) {
                    ended++;
                }
            } while (n < maxFrames && ch.buffered() > 0 && !closed);
            busy = ended > 1;
            return n;
        } catch (IOException e) {
            if (!closed) {
                session.connectionFailed(this, "connection " + cid + ": " + e.getMessage());
            }
            return -1;
        } catch (RuntimeException e) {
            session.connectionFailed(this, "connection " + cid + ": internal error " + e);
            return -1;
        }
    }

    /**
     * The reader thread before any poll: one PDU, waiting for it in {@code read(2)}; then, if a thread asked to poll,
     * makes the socket non-blocking (nobody else reads it now). False once the connection failed or closed.
     */
    private boolean receiveBlocking() {
        try {
            if (!handleNext()) {
                return false;
            }
            // Under the send lock, so no sender is inside a blocking write meanwhile: the switch waits for writes in
            // progress, and one blocked on a full socket could wait for a target that waits for this reader.
            if (pollRequested && !closed && sendLock.tryLock()) {
                try {
                    ch.nonBlocking();
                    pollable = true;   // volatile write after the selectors were set up: pairs with poll()'s read
                } finally {
                    sendLock.unlock();
                }
            }
            return true;
        } catch (IOException e) {
            if (!closed) {
                session.connectionFailed(this, "connection " + cid + ": " + e.getMessage());
            }
            return false;
        } catch (RuntimeException e) {
            session.connectionFailed(this, "connection " + cid + ": internal error " + e);
            return false;
        }
    }

    /** Reads and handles one PDU; false when it failed the connection (reported). */
    private boolean handleNext() throws IOException {
        TargetPduHandler handler = session.handler();
        String problem;
        boolean hot = ch.next();
        lastRx = System.nanoTime();
        if (hot) {
            ByteBuffer f = ch.frame();
            int b = ch.frameAt();
            endedTask = (f.get(b + Bhs.OPCODE) & Bhs.OPCODE_MASK) != Opcode.SCSI_DATA_IN.code
                    || (f.get(b + Bhs.FLAGS) & Flags.DATA_IN_STATUS) != 0;
            problem = handler.handleHot(this, ch.frame(), ch.frameAt(), ch.placed() ? -1 : ch.hotDataAt(),
                    ch.hotDataLength());
        } else if (ch.decoded() instanceof DecodeError e) {
            endedTask = true;
            problem = "bad PDU from the target: " + e.detail();
        } else {
            endedTask = true;
            problem = handler.handle(this, (Pdu) ch.decoded());
        }
        if (problem != null) {
            session.connectionFailed(this, problem);
            return false;
        }
        return true;
    }

    /** True once a poll switched the socket to the selector (see {@link #pollable}). */
    boolean pollable() {
        return pollable;
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
        Thread r = reader;
        if (r != null) {
            LockSupport.unpark(r);   // a reader standing aside ends now, not after its park
        }
    }
}
