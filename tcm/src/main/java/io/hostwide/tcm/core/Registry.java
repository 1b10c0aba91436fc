package io.hostwide.tcm.core;

import io.hostwide.tcm.dispatch.CommandTable;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.lu.DeviceAttributes;
import io.hostwide.tcm.port.NodeAcl;
import io.hostwide.tcm.port.ScsiTarget;
import io.hostwide.tcm.port.TargetPort;
import io.hostwide.tcm.spi.Background;
import io.hostwide.tcm.spi.Backstore;
import io.hostwide.tcm.spi.Fabric;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * What a core holds (LIO's configfs tree): targets and their ports, devices with what the core attached to them
 * ({@link LuRuntime}), and the sessions (I_T nexuses) logged in. Port LUN map and ACL changes reach the live sessions
 * of the port. Configuration calls come from management threads; the command path reads only what a session's LUN
 * map already holds.
 */
public final class Registry {
    private final CoreConfig config;
    private final Map<String, ScsiTarget> targets = new ConcurrentHashMap<>();
    private final Map<String, LuRuntime> devices = new ConcurrentHashMap<>();
    private final List<Session> sessions = new CopyOnWriteArrayList<>();
    private final PowerOnLedger powerOnLedger = new PowerOnLedger();
    private final TargetPort.Listener portListener = this::lunMapChanged;
    private volatile Path aptplDirectory;
    private volatile Background background;

    public Registry(CoreConfig config) { this.config = config; }

    public CoreConfig config() { return config; }

    /**
     * Where devices added from now on keep their APTPL persistent reservation state (SPC-4 §5.13.5), one file per
     * device; what a previous run left there is restored when the device is added. Null (the default): APTPL is
     * accepted but nothing survives a restart.
     */
    public void aptplDirectory(Path directory) { this.aptplDirectory = directory; }

    public Path aptplDirectory() { return aptplDirectory; }

    /**
     * Where long operations run (sanitize chunks, ALUA transition delays), never on a fabric's thread. Created on
     * first use: one daemon thread that ends when idle.
     */
    public Background background() {
        Background b = background;
        if (b == null) {
            synchronized (this) {
                b = background;
                if (b == null) {
                    background = b = Background.daemon("hostwide-background");
                }
            }
        }
        return b;
    }

    /** Replaces the background executor (tests step one by hand); set before commands use it. */
    public synchronized void background(Background b) { this.background = b; }

    public ScsiTarget addTarget(String name) {
        ScsiTarget t = new ScsiTarget(name);
        if (targets.putIfAbsent(name, t) != null) {
            throw new IllegalArgumentException("target exists: " + name);
        }
        return t;
    }

    public ScsiTarget target(String name) { return targets.get(name); }

    /**
     * Removes a target (LIO: rmdir of the target's configfs directory). The fabric ends its own sessions first;
     * any core session still open on one of its ports (another fabric's) is closed here, its commands ending once.
     *
     * @return whether the target existed
     */
    public boolean removeTarget(String name) {
        ScsiTarget t = targets.remove(name);
        if (t == null) {
            return false;
        }
        for (Session s : sessions) {
            if (s.port().target() == t) {
                s.close();
            }
        }
        return true;
    }

    public List<ScsiTarget> targets() { return new ArrayList<>(targets.values()); }

    /** Adds a target port to a target and wires it to this core (LUN map changes reach sessions). */
    public TargetPort addPort(ScsiTarget target, int tag, int protocolIdentifier) {
        TargetPort p = target.addPort(tag, protocolIdentifier);
        p.listener(portListener);
        return p;
    }

    /** Creates a direct-access block device over {@code backstore}, with its command table and I/O queue. */
    public Device addDevice(String name, Backstore backstore, DeviceAttributes attributes) {
        Device d = new Device(name, backstore, attributes);
        LuRuntime rt = new LuRuntime(d, CommandTables.of(d));
        if (devices.putIfAbsent(name, rt) != null) {
            if (rt.ioQueue() != null) {
                rt.ioQueue().close(); // its worker threads would outlive the refused device
            }
            throw new IllegalArgumentException("device exists: " + name);
        }
        d.alua().background(this::background);
        Path dir = aptplDirectory;
        if (dir != null) {
            d.reservations().persistIn(dir);
        }
        return d;
    }

    public Device device(String name) {
        LuRuntime rt = devices.get(name);
        return rt == null ? null : rt.device();
    }

    /**
     * Removes a device no port exports any more and closes it: its I/O queue drains (queued commands finish),
     * then its backstore closes. Refused while a LUN of any port still refers to it, so no nexus can lose it
     * underneath a command.
     *
     * @return whether the device existed
     * @throws IllegalStateException naming a LUN that still exports it
     */
    public boolean removeDevice(String name) throws IOException {
        LuRuntime rt = devices.get(name);
        if (rt == null) {
            return false;
        }
        for (ScsiTarget t : targets.values()) {
            for (TargetPort p : t.ports()) {
                for (var l : p.luns()) {
                    if (l.device() == rt.device()) {
                        throw new IllegalStateException("device " + name + " is exported as LUN " + l.lunNumber()
                                + " of " + p.portName());
                    }
                }
            }
        }
        devices.remove(name, rt);
        rt.close();
        return true;
    }

    /** What this core attached to {@code d}: its command table, I/O queue and task set. */
    LuRuntime runtime(Device d) {
        LuRuntime rt = devices.get(d.name());
        if (rt == null || rt.device() != d) {
            throw new IllegalArgumentException(d + " was not added to this core");
        }
        return rt;
    }

    /** The command table built for {@code d} from its attributes (REPORT SUPPORTED OPERATION CODES reports it). */
    public CommandTable commandTable(Device d) { return runtime(d).commandTable(); }

    /** The I/O queue of {@code d} when its backstore blocks, else null. */
    public IoQueue ioQueue(Device d) { return runtime(d).ioQueue(); }

    /** The task set ordering state of {@code d} (task attribute gate). */
    public TaskSet taskSet(Device d) { return runtime(d).taskSet(); }

    /**
     * Registers a new I_T nexus whose commands go through {@code pipeline}. The initiator must have an ACL on the
     * port, or the port must be in demo mode.
     *
     * @param initiatorPortName the initiator port's SCSI name (iSCSI: InitiatorName + ",i,0x" + ISID)
     * @throws IllegalArgumentException when the port does not admit the initiator (the fabric fails the login)
     */
    public Session openSession(Pipeline pipeline, TargetPort port, Fabric fabric, String initiatorName,
                               String initiatorPortName) {
        if (!port.admits(initiatorName)) {
            throw new IllegalArgumentException("initiator " + initiatorName + " has no access to " + port.portName());
        }
        NodeAcl acl = port.acl(initiatorName);
        port.listener(portListener); // also wires ports created directly on a ScsiTarget
        Session s = new Session(this, pipeline, port, fabric, initiatorName, initiatorPortName, acl,
                config.commandPoolSize());
        s.refreshLuns(false);
        sessions.add(s);
        return s;
    }

    void unregister(Session s) { sessions.remove(s); }

    PowerOnLedger powerOnLedger() { return powerOnLedger; }

    /**
     * TARGET COLD RESET (SAM-5 §6.3.2: a power on condition): nexuses created after it see POWER ON, RESET, OR BUS
     * DEVICE RESET OCCURRED again, as the ones that existed see POWER ON OCCURRED.
     */
    public void powerOnOccurred(ScsiTarget t) { powerOnLedger.forgetPorts(t.name() + ",t,"); }

    public List<Session> sessions() { return new ArrayList<>(sessions); }

    private void lunMapChanged(TargetPort port, NodeAcl acl) {
        for (Session s : sessions) {
            if (s.port() == port && (acl == null || s.acl() == acl)) {
                s.refreshLuns(true);
            }
        }
    }

    /** A text tree of targets, ports, LUNs, devices (queues, task set counters) and sessions (UAs pending). */
    public String dump() { return CoreDump.dump(this, new ArrayList<>(devices.values())); }

    /** Closes every session and device (I/O queues drain, backstores close). */
    public void close() {
        for (Session s : sessions) {
            s.close();
        }
        Background b = background;
        if (b != null) {
            b.close(); // before the backstores close: a sanitize in progress stops between two chunks
        }
        IOException first = null;
        for (LuRuntime d : devices.values()) {
            try {
                d.close();
            } catch (IOException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        devices.clear();
        if (first != null) {
            throw new UncheckedIOException(first);
        }
    }
}
