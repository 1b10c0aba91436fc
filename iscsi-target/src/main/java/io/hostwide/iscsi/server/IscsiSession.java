package io.hostwide.iscsi.server;

import io.hostwide.iscsi.login.NegotiatedParameters;
import io.hostwide.iscsi.pdu.Pdu;
import io.hostwide.tcm.core.Session;
import io.hostwide.tcm.spi.TargetCommand;
import io.hostwide.tcm.spi.Fabric;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An iSCSI session (RFC 7143 §3.2): one or more connections, one CmdSN window, one I_T nexus of the core. It is the
 * core's {@link Fabric} for its commands: completions go back to the connection each task arrived on.
 *
 * <p>Locking: the session monitor guards the window and the commands waiting for a CmdSN gap (MC/S); it is a leaf
 * lock, never held while calling out. Responses read the window through the volatile views.
 */
final class IscsiSession implements Fabric {
    /** SPC-4 Table 362: iSCSI. */
    static final int PROTOCOL_ID_ISCSI = 5;

    final int tsih;
    final long isid;
    final String initiatorName;
    final ExportedTarget target;
    final NegotiatedParameters params;
    /** The core's I_T nexus, null for discovery; set by the registry right after construction. */
    Session core;
    private final SessionRegistry registry;
    private final CmdSnWindow window;
    private final TreeMap<Integer, Deferred> ahead = new TreeMap<>();
    private final List<Connection> connections = new CopyOnWriteArrayList<>();
    /** Unsolicited Data-Out that arrived for commands held in {@code ahead}, by ITT (guarded by this). */
    private final java.util.Map<Integer, List<io.hostwide.iscsi.pdu.DataOut>> early = new java.util.HashMap<>();
    private long earlyBytes;
    private int releasing; // guarded by this
    private volatile boolean holding;
    private volatile boolean anyEarly;
    /** Bounds what an initiator can park here while a CmdSN gap lasts. */
    private static final long MAX_EARLY_BYTES = 16L << 20;
    private volatile int expCmdSnView;
    private volatile int maxCmdSnView;
    private volatile boolean closed;

    /** A command that arrived before the ones it must follow (MC/S), detached from the receive buffer. */
    record Deferred(Connection connection, Pdu pdu) {}

    IscsiSession(SessionRegistry registry, int tsih, long isid, String initiatorName, ExportedTarget target,
            NegotiatedParameters params, int firstCmdSn, int queueDepth) {
        this.registry = registry;
        this.tsih = tsih;
        this.isid = isid;
        this.initiatorName = initiatorName;
        this.target = target;
        this.params = params;
        this.window = new CmdSnWindow(firstCmdSn, queueDepth);
        publish();
    }

    boolean discovery() {
        return target == null;
    }

    @Override
    public int protocolIdentifier() {
        return PROTOCOL_ID_ISCSI;
    }

    @Override
    public void complete(TargetCommand cmd) {
        Task t = (Task) cmd.fabricPrivate();
        t.connection.completed(t);
    }

    int expCmdSn() {
        return expCmdSnView;
    }

    int maxCmdSn() {
        return maxCmdSnView;
    }

    private void publish() {
        expCmdSnView = window.expCmdSn();
        maxCmdSnView = window.maxCmdSn();
        holding = !ahead.isEmpty() || releasing > 0;
    }

    /** A command taken from {@code ahead} has created its task (or ended): its Data-Out need no parking now. */
    void deferredStarted() {
        synchronized (this) {
            releasing--;
            publish();
        }
    }

    /** True while some command waits for a CmdSN gap to close (MC/S). */
    boolean holdingCommands() {
        return holding;
    }

    /** Keeps Data-Out whose command is held for CmdSN order; beyond the bound it is dropped (the write fails). */
    void stashEarlyData(int itt, io.hostwide.iscsi.pdu.DataOut copy) {
        synchronized (this) {
            long n = copy.data().remaining();
            if (ahead.isEmpty() || earlyBytes + n > MAX_EARLY_BYTES) {
                return;
            }
            earlyBytes += n;
            early.computeIfAbsent(itt, k -> new ArrayList<>()).add(copy);
            anyEarly = true;
        }
    }

    /** Bytes of unsolicited Data-Out parked for held commands (a test waits on it to know a command is held). */
    synchronized long earlyBytes() {
        return earlyBytes;
    }

    /** The Data-Out parked for {@code itt}, or null; one volatile read when nothing is parked. */
    List<io.hostwide.iscsi.pdu.DataOut> takeEarlyData(int itt) {
        if (!anyEarly) {
            return null;
        }
        synchronized (this) {
            List<io.hostwide.iscsi.pdu.DataOut> l = early.remove(itt);
            if (l != null) {
                for (io.hostwide.iscsi.pdu.DataOut d : l) {
                    earlyBytes -= d.data().remaining();
                }
            }
            anyEarly = !early.isEmpty();
            return l;
        }
    }

    /**
     * Orders a non-immediate command by CmdSN (RFC 7143 §3.2.2.1); the command comes as a record or, on the hot
     * path, as {@code args}. Returns the deferred commands that became
     * deliverable after it (to run, in order, after it), an empty list, or null when this command must not run now
     * (queued ahead of a gap, or outside the window and silently ignored).
     */
    List<Deferred> order(int cmdSn, Connection from, Pdu pdu, CommandArgs args) {
        synchronized (this) {
            int verdict = window.classify(cmdSn);
            if (verdict == CmdSnWindow.OUTSIDE) {
                return null;
            }
            if (verdict == CmdSnWindow.AHEAD) {
                if (!ahead.containsKey(cmdSn)) {
                    ahead.put(cmdSn, new Deferred(from, args != null ? args.detached() : PduCopies.detach(pdu)));
                }
                publish();
                return null;
            }
            window.deliver();
            List<Deferred> ready = List.of();
            while (!ahead.isEmpty() && ahead.firstKey() == window.expCmdSn()) {
                if (ready.isEmpty()) {
                    ready = new ArrayList<>();
                }
                ready.add(ahead.pollFirstEntry().getValue());
                window.deliver();
                releasing++; // until its task exists, its Data-Out is still parked (see deferredStarted)
            }
            publish();
            return ready;
        }
    }

    /** A counted command finished: its window slot is free again. */
    void commandDone() {
        synchronized (this) {
            window.complete();
            publish();
        }
    }

    void attach(Connection c) {
        connections.add(c);
    }

    List<Connection> connections() {
        return connections;
    }

    Connection connection(int cid) {
        for (Connection c : connections) {
            if (c.cid() == cid) {
                return c;
            }
        }
        return null;
    }

    /** A connection has gone: when it was the last one, the session ends (ERL 0, RFC 7143 §6.3.5). */
    void detach(Connection c) {
        connections.remove(c);
        if (connections.isEmpty()) {
            close();
        }
    }

    /**
     * Releases the SPC-2 reservations the nexus holds (SPC-2 §5.5.1: they go with the nexus) now, on the caller's
     * thread, rather than after its commands are aborted. For a logout, before the response: with reservations
     * shared between gateways (issue 16) the release is a store round trip, and an initiator that logs out and
     * reserves through another gateway right away must find it released. {@link #close()} releases again (a no-op
     * by then).
     */
    void releaseSpc2() {
        Session nexus = core;
        if (nexus != null) {
            nexus.releaseSpc2Reservations();
        }
    }

    /** Ends the session: every connection closes, the core nexus goes. Idempotent. */
    void close() {
        if (closed) {
            return;
        }
        closed = true;
        registry.remove(this);
        for (Connection c : connections) {
            c.close("session closed");
        }
        Session nexus = core;
        if (nexus != null) {
            // SAM-5 §6.3.4 I_T nexus loss: the core aborts the nexus's commands (their responses suppressed) and
            // releases its SPC-2 reservations; the nexus goes once they all completed
            registry.taskManagement().nexusLoss(nexus, nexus::close);
        }
    }

    boolean closed() {
        return closed;
    }
}
