package io.hostwide.iscsi.server;

import io.hostwide.iscsi.pdu.AsyncMessage;
import io.hostwide.iscsi.spec.AsyncEvent;
import io.hostwide.scsi.spec.Asc;
import io.hostwide.scsi.spec.FixedSense;
import io.hostwide.scsi.spec.LunAddress;
import io.hostwide.scsi.spec.SenseKey;
import io.hostwide.tcm.core.Session;
import io.hostwide.tcm.lu.SessionLun;
import java.nio.ByteBuffer;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Asynchronous Messages (RFC 7143 §11.9) the target sends on its own initiative, from one daemon thread so that the
 * core, which reports a unit attention while it may hold a lock of its own, never waits for a socket.
 *
 * <p>AsyncEvent 0 (SCSI Async Event) carries the sense data of a unit attention an initiator acts on without
 * waiting for its next command: REPORTED LUNS DATA HAS CHANGED (open-iscsi rescans the session on it), CAPACITY
 * DATA HAS CHANGED, INQUIRY DATA HAS CHANGED and ASYMMETRIC ACCESS STATE CHANGED. The condition stays queued and is
 * still reported with the next command to that LU (SAM-5 §5.14), so an event lost with a dropped connection costs
 * nothing. The nexus-wide REPORTED LUNS DATA HAS CHANGED, queued on every LU at once, is sent once per change.
 * AsyncEvent 1 (logout requested) is sent by {@link IscsiTargetServer#shutdown}.
 */
final class AsyncEvents {
    private static final Logger LOG = Logger.getLogger(AsyncEvents.class.getName());

    private final LinkedBlockingQueue<Runnable> queue = new LinkedBlockingQueue<>();
    private final Thread thread;

    AsyncEvents() {
        thread = new Thread(this::run, "iscsi-async-events");
        thread.setDaemon(true);
        thread.start();
    }

    /** The unit attentions worth an Asynchronous Message. */
    static boolean reported(int ascAscq) {
        return ascAscq == Asc.REPORTED_LUNS_DATA_HAS_CHANGED || ascAscq == Asc.CAPACITY_DATA_HAS_CHANGED
                || ascAscq == Asc.INQUIRY_DATA_HAS_CHANGED || ascAscq == Asc.ASYMMETRIC_ACCESS_STATE_CHANGED;
    }

    /** The core queued {@code ascAscq} for {@code s}'s nexus on LU {@code mappedLun} (any thread; never blocks). */
    void unitAttention(IscsiSession s, int mappedLun, int ascAscq) {
        if (!reported(ascAscq) || s.closed()) {
            return;
        }
        if (ascAscq == Asc.REPORTED_LUNS_DATA_HAS_CHANGED && pendingElsewhere(s.core, mappedLun, ascAscq)) {
            return; // the core queues it on every LU of the nexus at once: one event for the inventory change
        }
        queue.add(() -> scsiEvent(s, mappedLun, ascAscq));
    }

    private static boolean pendingElsewhere(Session nexus, int mappedLun, int ascAscq) {
        if (nexus == null) {
            return false;
        }
        for (SessionLun l : nexus.sessionLuns()) {
            if (l.mappedLun() != mappedLun && l.unitAttentions().contains(ascAscq)) {
                return true;
            }
        }
        return false;
    }

    /** Runs {@code r} on the events thread, after the events queued before it. */
    void later(Runnable r) {
        queue.add(r);
    }

    /** Sends AsyncEvent 0 on the session's first connection in the full feature phase (§11.9: any connection). */
    private static void scsiEvent(IscsiSession s, int mappedLun, int ascAscq) {
        for (Connection c : s.connections()) {
            if (c.fullFeature() != null && !c.isClosed()) {
                // SenseLength + fixed-format sense (SPC-4 §4.5.3), as in a SCSI Response's data (§11.4.7)
                byte[] pdu = new byte[2 + FixedSense.LENGTH];
                byte[] sense = new byte[FixedSense.LENGTH];
                FixedSense.encode(sense, SenseKey.UNIT_ATTENTION, ascAscq, false, 0, -1);
                System.arraycopy(sense, 0, pdu, 2, FixedSense.LENGTH);
                ByteBuffer data = ByteBuffer.wrap(pdu).putShort(0, (short) FixedSense.LENGTH);
                long lun = LunAddress.encode(mappedLun);
                c.writer.send(sn -> new AsyncMessage(lun, sn, s.expCmdSn(), s.maxCmdSn(), AsyncEvent.SCSI_ASYNC_EVENT,
                        0, 0, 0, 0, data), true);
                c.writer.flush();
                return;
            }
        }
    }

    /**
     * AsyncEvent 1 on {@code c} (§11.9.1): the initiator must log out within {@code seconds}; Parameter3 carries
     * them. Called on the events thread.
     */
    static void requestLogout(Connection c, int seconds) {
        IscsiSession s = c.session();
        if (s == null || c.fullFeature() == null || c.isClosed()) {
            return;
        }
        c.writer.send(sn -> new AsyncMessage(0, sn, s.expCmdSn(), s.maxCmdSn(), AsyncEvent.LOGOUT_REQUEST, 0, 0, 0,
                seconds, ByteBuffer.allocate(0)), true);
        c.writer.flush();
    }

    private void run() {
        while (true) {
            Runnable r;
            try {
                r = queue.take();
            } catch (InterruptedException e) {
                return;
            }
            try {
                r.run();
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "asynchronous message failed", e);
            }
        }
    }

    void close() {
        thread.interrupt();
    }
}
