package io.hostwide.tcm;

import io.hostwide.tcm.core.CoreCommand;
import io.hostwide.tcm.core.CoreConfig;
import io.hostwide.tcm.core.IoQueue;
import io.hostwide.tcm.core.Pipeline;
import io.hostwide.tcm.core.Registry;
import io.hostwide.tcm.core.Session;
import io.hostwide.tcm.core.TaskSet;
import io.hostwide.tcm.dispatch.CommandGate;
import io.hostwide.tcm.dispatch.CommandTable;
import io.hostwide.tcm.dispatch.GateSlot;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.lu.DeviceAttributes;
import io.hostwide.tcm.port.ScsiTarget;
import io.hostwide.tcm.port.TargetPort;
import io.hostwide.tcm.spi.Background;
import io.hostwide.tcm.spi.Backstore;
import io.hostwide.tcm.spi.Fabric;
import io.hostwide.tcm.spi.TargetCommand;
import io.hostwide.tcm.tmf.TaskManagement;

import java.nio.file.Path;
import java.util.List;

/**
 * The transport-independent SCSI target core (LIO's target_core_mod): the one object fabrics and the serve
 * assembly hold. It puts together the {@link Registry} (targets, ports, devices, ACLs, sessions), the
 * {@link Pipeline} every submitted command goes through (LUN lookup → table row → CDB checks → gates → handler →
 * completion) and the {@link TaskManagement task manager}, and passes each call to the one it belongs to.
 */
public final class TargetCore implements AutoCloseable {
    private final Registry registry;
    private final Pipeline pipeline;
    private final TaskManagement taskManagement;

    public TargetCore() { this(CoreConfig.defaults()); }

    public TargetCore(CoreConfig config) {
        this.registry = new Registry(config);
        this.pipeline = new Pipeline(registry);
        this.taskManagement = new TaskManagement(registry, pipeline.aborts());
        pipeline.supportedTaskManagement(TaskManagement.SUPPORTED);
    }

    /** Targets, ports, devices, ACLs and sessions. */
    public Registry registry() { return registry; }

    /** The command path: gates, the supported task management functions. */
    public Pipeline pipeline() { return pipeline; }

    /**
     * The task manager: the one transport-independent entry point for task management functions
     * ({@code taskManagement().request(session, function, lun, referencedTag, callback)}, see README).
     */
    public TaskManagement taskManagement() { return taskManagement; }

    public CoreConfig config() { return registry.config(); }

    /** See {@link Registry#aptplDirectory(Path)}: set before the devices whose APTPL state it keeps are added. */
    public void aptplDirectory(Path directory) { registry.aptplDirectory(directory); }

    public Path aptplDirectory() { return registry.aptplDirectory(); }

    /** Where long operations run (sanitize chunks, ALUA transition delays); see {@link Registry#background()}. */
    public Background background() { return registry.background(); }

    /** Replaces the background executor (tests step one by hand); set before commands use it. */
    public void background(Background b) { registry.background(b); }

    public ScsiTarget addTarget(String name) { return registry.addTarget(name); }

    public ScsiTarget target(String name) { return registry.target(name); }

    /** See {@link Registry#removeTarget(String)}. */
    public boolean removeTarget(String name) { return registry.removeTarget(name); }

    /** See {@link Registry#removeDevice(String)}. */
    public boolean removeDevice(String name) throws java.io.IOException { return registry.removeDevice(name); }

    public List<ScsiTarget> targets() { return registry.targets(); }

    /** Adds a target port to a target and wires it to this core (LUN map changes reach sessions). */
    public TargetPort addPort(ScsiTarget target, int tag, int protocolIdentifier) {
        return registry.addPort(target, tag, protocolIdentifier);
    }

    /** Creates a direct-access block device over {@code backstore}. */
    public Device addDevice(String name, Backstore backstore, DeviceAttributes attributes) {
        Device d = registry.addDevice(name, backstore, attributes);
        // another gateway's PREEMPT AND ABORT (shared reservations) aborts the preempted nexuses' tasks here
        d.reservations().remoteAborter((nexuses, then) -> pipeline.aborts().abort(null,
                c -> c.device() == d && nexuses.contains(c.session()), null, null, then, () -> { }));
        return d;
    }

    public Device device(String name) { return registry.device(name); }

    /** The command table built for {@code d} from its attributes. */
    public CommandTable commandTable(Device d) { return registry.commandTable(d); }

    /** The I/O queue of {@code d} when its backstore blocks, else null. */
    public IoQueue ioQueue(Device d) { return registry.ioQueue(d); }

    /** The task set ordering state of {@code d}. */
    public TaskSet taskSet(Device d) { return registry.taskSet(d); }

    /**
     * Registers a new I_T nexus. The initiator must have an ACL on the port, or the port must be in demo mode.
     *
     * @param initiatorPortName the initiator port's SCSI name (iSCSI: InitiatorName + ",i,0x" + ISID)
     * @throws IllegalArgumentException when the port does not admit the initiator (the fabric fails the login)
     */
    public Session openSession(TargetPort port, Fabric fabric, String initiatorName, String initiatorPortName) {
        return registry.openSession(pipeline, port, fabric, initiatorName, initiatorPortName);
    }

    public List<Session> sessions() { return registry.sessions(); }

    /** See {@link Registry#powerOnOccurred(ScsiTarget)}. */
    public void powerOnOccurred(ScsiTarget t) { registry.powerOnOccurred(t); }

    /**
     * Hands a command to the core (same as its session's {@code submit}). Completion arrives through the session's
     * {@link Fabric#complete}.
     */
    public void submit(TargetCommand cmd) {
        if (!(cmd instanceof CoreCommand c)) {
            throw new IllegalStateException("not a command of a session of this core: " + cmd);
        }
        c.session().submit(c);
    }

    /** Installs the gate of a slot (reservation, ALUA, task attribute layers plug in here); null removes it. */
    public void installGate(GateSlot slot, CommandGate gate) { pipeline.installGate(slot, gate); }

    public CommandGate gate(GateSlot slot) { return pipeline.gate(slot); }

    /** See {@link Pipeline#supportedTaskManagement(int)}. */
    public void supportedTaskManagement(int bits) { pipeline.supportedTaskManagement(bits); }

    public int supportedTaskManagement() { return pipeline.supportedTaskManagement(); }

    /** A text tree of targets, ports, LUNs, devices (queues, task set counters) and sessions (UAs pending). */
    public String dump() { return registry.dump(); }

    /** Closes every session and device (I/O queues drain, backstores close). */
    @Override
    public void close() { registry.close(); }
}
