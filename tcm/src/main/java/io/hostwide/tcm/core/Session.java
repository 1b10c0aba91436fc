package io.hostwide.tcm.core;

import io.hostwide.scsi.spec.Asc;
import io.hostwide.scsi.spec.LunAddress;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.lu.ItNexus;
import io.hostwide.tcm.lu.SessionLun;
import io.hostwide.tcm.lu.UnitAttentionListener;
import io.hostwide.tcm.port.MappedLun;
import io.hostwide.tcm.port.NodeAcl;
import io.hostwide.tcm.port.TargetPort;
import io.hostwide.tcm.spi.Fabric;
import io.hostwide.tcm.spi.TargetCommand;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;


/**
 * One I_T nexus: an initiator port logged in to a target port (SAM-5 §4.6.2). Registered with the core so that
 * unit attentions, reservations and task management can address it. Holds the LUN map this nexus sees (from its
 * ACL, or every LUN of the port in demo mode) and a pool of reusable commands.
 *
 * <p>The LUN map is an immutable array published through a volatile field (copy-on-write): lookups on the fast
 * path are one volatile read and an index, changes rebuild the array. Next to each LUN it holds what the core
 * attached to the device ({@link LuRuntime}), so that one lookup gives a command both.
 */
public final class Session implements ItNexus, AutoCloseable {
    private static final AtomicLong IDS = new AtomicLong();

    /** The core's registry (config, power-on ledger, what it attached to devices); named for what it stands for. */
    private final Registry core;
    private final Pipeline pipeline;
    private final TargetPort port;
    private final String targetPortName;
    private final Fabric fabric;
    private final String initiatorName;
    private final String initiatorPortName;
    private final NodeAcl acl;
    private final long id = IDS.incrementAndGet();
    private final CommandPool pool;
    private volatile LunMap luns = LunMap.EMPTY; // copy-on-write
    /** Every command object this session owns (pooled or in flight), scanned by task management. */
    private final CopyOnWriteArrayList<CoreCommand> commands = new CopyOnWriteArrayList<>();
    private volatile boolean closed;
    private volatile UnitAttentionListener unitAttentionListener;

    Session(Registry core, Pipeline pipeline, TargetPort port, Fabric fabric, String initiatorName,
            String initiatorPortName, NodeAcl acl, int poolSize) {
        this.core = core;
        this.pipeline = pipeline;
        this.port = port;
        this.targetPortName = port.portName();
        this.fabric = fabric;
        this.initiatorName = initiatorName;
        this.initiatorPortName = initiatorPortName;
        this.acl = acl;
        this.pool = new CommandPool(2 * poolSize);
    }

    /** A command from the pool (or a new one when the pool is empty), ready for {@link TargetCommand#setup}. */
    public TargetCommand newCommand() {
        CoreCommand c = pool.poll();
        if (c == null) {
            c = new CoreCommand(this);
            commands.add(c); // only while the pool warms up or overflows: not the steady state
        }
        c.markPrepared();
        c.resetForUse();
        return c;
    }

    void recycle(CoreCommand c) {
        if (!pool.offer(c)) {
            commands.remove(c); // left to the garbage collector
        }
    }

    /** The command objects of this session, for task management scans (SAM-5 §7); most are idle. */
    List<CoreCommand> commandObjects() { return commands; }

    /**
     * Hands a command to the core; completion arrives through {@link Fabric#complete}.
     *
     * @throws IllegalStateException when submitted twice or not taken from {@link #newCommand()}
     */
    public void submit(TargetCommand cmd) {
        if (!(cmd instanceof CoreCommand c)) {
            throw new IllegalStateException("not a command of a session of this core: " + cmd);
        }
        pipeline.submit(c);
    }

    Pipeline pipeline() { return pipeline; }

    Registry registry() { return core; }

    /** The LUN map: index = LUN number; each LUN with what the core attached to its device. */
    record LunMap(SessionLun[] luns, LuRuntime[] runtimes) {
        static final LunMap EMPTY = new LunMap(new SessionLun[0], new LuRuntime[0]);
    }

    @Override
    public long id() { return id; }

    public TargetPort port() { return port; }

    @Override
    public String targetPortName() { return targetPortName; }

    @Override
    public int relativeTargetPortId() { return port.relativePortId(); }

    public Fabric fabric() { return fabric; }


    @Override
    public String initiatorName() { return initiatorName; }

    @Override
    public String initiatorPortName() { return initiatorPortName; }

    /** The ACL this session logged in under, or null in demo mode. */
    public NodeAcl acl() { return acl; }

    @Override
    public boolean closed() { return closed; }

    @Override
    public SessionLun lookup(int lunNumber) {
        SessionLun[] a = luns.luns;
        return lunNumber >= 0 && lunNumber < a.length ? a[lunNumber] : null;
    }

    /**
     * The largest Data-Out a command to {@code lunField} (the 8-byte LUN field, SAM-5 §4.7) can need: its device's
     * MAXIMUM TRANSFER LENGTH in bytes, and at least {@link #MIN_DATA_OUT} for parameter lists (UNMAP, EXTENDED
     * COPY, PERSISTENT RESERVE OUT, MODE SELECT). A fabric collects no more than this before the core sees the
     * command: a larger Expected Data Transfer Length would make it allocate what no command can use.
     */
    public long maxDataOut(long lunField) {
        int n = LunAddress.decode(lunField);
        SessionLun[] a = luns.luns;
        SessionLun l = n >= 0 && n < a.length ? a[n] : null;
        if (l == null) {
            return MIN_DATA_OUT;
        }
        Device d = l.device();
        return Math.max(MIN_DATA_OUT, d.maxTransferBlocks() * d.blockSize());
    }

    /** See {@link #maxDataOut}: 1 MiB, above every parameter list the core accepts. */
    public static final long MIN_DATA_OUT = 1 << 20;

    /** The current LUN map (one volatile read; the command path takes LUN and runtime from the same map). */
    LunMap lunMap() { return luns; }

    @Override
    public int[] mappedLunNumbers() {
        SessionLun[] a = luns.luns;
        int n = 0;
        for (SessionLun l : a) {
            if (l != null) {
                n++;
            }
        }
        int[] r = new int[n];
        int i = 0;
        for (int k = 0; k < a.length; k++) {
            if (a[k] != null) {
                r[i++] = k;
            }
        }
        return r;
    }

    @Override
    public List<SessionLun> sessionLuns() {
        List<SessionLun> r = new ArrayList<>();
        for (SessionLun l : luns.luns) {
            if (l != null) {
                r.add(l);
            }
        }
        return r;
    }

    /**
     * Rebuilds the LUN map from the ACL (or the port in demo mode). LUNs kept keep their UA queue; when
     * {@code announce} is set and the inventory changed, every LUN of the nexus gets REPORTED LUNS DATA HAS CHANGED
     * (SPC-4 §6.33). New LUNs start with POWER ON, RESET, OR BUS DEVICE RESET OCCURRED when the core is configured
     * to report it and this initiator port has not been told yet ({@link PowerOnLedger}).
     */
    synchronized void refreshLuns(boolean announce) {
        if (closed) {
            return;
        }
        SessionLun[] old = luns.luns;
        LuRuntime[] oldRuntimes = luns.runtimes;
        List<MappedLun> mapped = acl != null ? acl.mappedLuns() : port.demoModeMappings();
        int max = -1;
        for (MappedLun m : mapped) {
            max = Math.max(max, m.mappedLun());
        }
        SessionLun[] next = new SessionLun[max + 1];
        LuRuntime[] runtimes = new LuRuntime[max + 1];
        boolean changed = false;
        for (MappedLun m : mapped) {
            int n = m.mappedLun();
            SessionLun prev = n < old.length ? old[n] : null;
            if (prev != null && prev.lun() == m.lun() && prev.readOnly() == m.readOnly()) {
                next[n] = prev;
                runtimes[n] = oldRuntimes[n];
            } else {
                SessionLun sl = new SessionLun(this, n, m.lun(), m.readOnly(), this::unitAttentionQueued);
                if (core.config().powerOnUnitAttention()
                        && core.powerOnLedger().firstSight(initiatorPortName, port.portName(), m.lun().device().name())) {
                    sl.unitAttentions().add(Asc.POWER_ON_RESET_OR_BUS_DEVICE_RESET_OCCURRED);
                }
                next[n] = sl;
                runtimes[n] = core.runtime(m.lun().device());
                m.lun().device().attach(sl);
                changed = true;
            }
        }
        for (int i = 0; i < old.length; i++) {
            if (old[i] != null && (i >= next.length || next[i] != old[i])) {
                old[i].device().detach(old[i]);
                changed = true;
            }
        }
        if (announce && changed) {
            // SPC-4 §6.33: the inventory this nexus sees changed; tell it on every LUN it still has
            for (SessionLun l : next) {
                if (l != null) {
                    l.unitAttentions().add(Asc.REPORTED_LUNS_DATA_HAS_CHANGED);
                }
            }
        }
        luns = new LunMap(next, runtimes);
    }

    /** Tells {@code l} of every unit attention queued for this nexus from now on (null: nobody). */
    public void unitAttentionListener(UnitAttentionListener l) { this.unitAttentionListener = l; }

    void unitAttentionQueued(SessionLun lun, int ascAscq) {
        UnitAttentionListener l = unitAttentionListener;
        if (l != null && !closed) {
            l.queued(lun, ascAscq);
        }
    }

    /**
     * Releases the SPC-2 reservations this nexus holds (SPC-2 §5.5.1), ahead of its loss, on the caller's thread: a
     * fabric ending the nexus on the initiator's request (iSCSI logout) calls it before answering, so that with
     * reservations shared between gateways the release is in the store when the initiator hears back. Closing
     * releases them again, which is then free.
     */
    public void releaseSpc2Reservations() {
        for (SessionLun l : sessionLuns()) {
            l.device().reservations().releaseSpc2(this);
        }
    }

    /** Ends the nexus: its per-nexus state (UAs, medium-removal prevention) goes with it (I_T nexus loss). */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            for (SessionLun l : luns.luns) {
                if (l != null) {
                    // I_T nexus loss releases its SPC-2 reservation (SPC-2 §5.5.1); kept by name, it must be
                    // released explicitly (no round trip unless this nexus holds it)
                    l.device().reservations().releaseSpc2(this);
                    l.device().detach(l);
                }
            }
            luns = LunMap.EMPTY;
        }
        core.unregister(this);
    }

    @Override
    public String toString() {
        return "Session[" + id + " " + initiatorPortName + " -> " + port.portName() + "]";
    }
}
