package io.hostwide.tcm;

import io.hostwide.scsi.spec.LunAddress;
import io.hostwide.scsi.spec.ScsiOpcode;
import io.hostwide.scsi.spec.TaskAttribute;
import io.hostwide.tcm.core.CommandTables;
import io.hostwide.tcm.core.IoQueue;
import io.hostwide.tcm.dispatch.CommandDescriptor;
import io.hostwide.tcm.dispatch.CommandGate;
import io.hostwide.tcm.dispatch.CommandTable;
import io.hostwide.tcm.dispatch.GateSlot;
import io.hostwide.tcm.lu.BackgroundOperation;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.lu.DeviceAttributes;
import io.hostwide.tcm.lu.DeviceStats;
import io.hostwide.tcm.lu.SessionLun;
import io.hostwide.tcm.port.NodeAcl;
import io.hostwide.tcm.port.ScsiTarget;
import io.hostwide.tcm.port.TargetPort;
import io.hostwide.tcm.spc.UnitAttentionGate;
import io.hostwide.tcm.spi.Background;
import io.hostwide.tcm.spi.Backstore;
import io.hostwide.tcm.spi.Fabric;
import io.hostwide.tcm.spi.SenseReason;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The transport-independent SCSI target core (LIO's target_core): the registry of targets, ports, devices and
 * sessions, and the command pipeline every fabric feeds.
 *
 * <p>Pipeline of {@link #submit(TargetCommand)}: LUN lookup through the session's map (ACL or demo mode) → command
 * table row (INVALID COMMAND OPERATION CODE / service action check) → CDB checks (length, reserved bits against the
 * usage data, CONTROL byte, ACA) → transfer length vs the transport's expected length → gates in {@link GateSlot}
 * order (unit attention, reservation, ALUA, task attribute) → medium / write-protect checks → handler, inline or
 * on the device's I/O queue → completion (sense bytes, residuals) → {@link Fabric#complete}. Nothing a command
 * carries throws out of here.
 */
public final class TargetCore implements AutoCloseable {
    private final CoreConfig config;
    private final Map<String, ScsiTarget> targets = new ConcurrentHashMap<>();
    private final Map<String, LuRuntime> devices = new ConcurrentHashMap<>();
    private final List<Session> sessions = new CopyOnWriteArrayList<>();
    private final PowerOnLedger powerOnLedger = new PowerOnLedger();
    private final CommandGate[] gates = new CommandGate[GateSlot.values().length];
    private final TargetPort.Listener portListener = this::lunMapChanged;
    /** Bound once: the I/O queue's steps for every queued command (no per-command method reference). */
    private final IoQueue.Work queuedExecute = this::runQueued;
    private final IoQueue.Completion queuedComplete = this::complete;
    private volatile int supportedTaskManagement;
    private final io.hostwide.tcm.tmf.TaskManagement taskManagement = new io.hostwide.tcm.tmf.TaskManagement(this);
    private volatile java.nio.file.Path aptplDirectory;
    private volatile Background background;

    public TargetCore() { this(CoreConfig.defaults()); }

    public TargetCore(CoreConfig config) {
        this.config = config;
        gates[GateSlot.UNIT_ATTENTION.ordinal()] = new UnitAttentionGate();
        gates[GateSlot.RESERVATION.ordinal()] = new io.hostwide.tcm.pr.ReservationGate();
        gates[GateSlot.ALUA.ordinal()] = new io.hostwide.tcm.alua.AluaGate();
        gates[GateSlot.TASK_ATTRIBUTE.ordinal()] = new TaskAttributeGate(this);
        supportedTaskManagement(io.hostwide.tcm.tmf.TaskManagement.SUPPORTED);
    }

    /**
     * The task manager: the one transport-independent entry point for task management functions
     * ({@code taskManagement().request(session, function, lun, referencedTag, callback)}, see README).
     */
    public io.hostwide.tcm.tmf.TaskManagement taskManagement() { return taskManagement; }

    /**
     * Where devices added from now on keep their APTPL persistent reservation state (SPC-4 §5.13.5), one file per
     * device; what a previous run left there is restored when the device is added. Null (the default): APTPL is
     * accepted but nothing survives a restart.
     */
    public void aptplDirectory(java.nio.file.Path directory) { this.aptplDirectory = directory; }

    public java.nio.file.Path aptplDirectory() { return aptplDirectory; }

    public CoreConfig config() { return config; }

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

    // ======================================== configuration ================================================

    public ScsiTarget addTarget(String name) {
        ScsiTarget t = new ScsiTarget(name);
        if (targets.putIfAbsent(name, t) != null) {
            throw new IllegalArgumentException("target exists: " + name);
        }
        return t;
    }

    public ScsiTarget target(String name) { return targets.get(name); }

    public List<ScsiTarget> targets() { return new ArrayList<>(targets.values()); }

    /** Adds a target port to a target and wires it to this core (LUN map changes reach sessions). */
    public TargetPort addPort(ScsiTarget target, int tag, int protocolIdentifier) {
        TargetPort p = target.addPort(tag, protocolIdentifier);
        p.listener(portListener);
        return p;
    }

    /** Creates a direct-access block device over {@code backstore}. */
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
        java.nio.file.Path dir = aptplDirectory;
        if (dir != null) {
            d.reservations().persistIn(dir);
        }
        return d;
    }

    public Device device(String name) {
        LuRuntime rt = devices.get(name);
        return rt == null ? null : rt.device();
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

    /** Installs the gate of a slot (reservation, ALUA, task attribute layers plug in here). */
    public void installGate(GateSlot slot, CommandGate gate) { gates[slot.ordinal()] = gate; }

    public CommandGate gate(GateSlot slot) { return gates[slot.ordinal()]; }

    /**
     * The task management functions the installed TMF layer implements, as REPORT SUPPORTED TASK MANAGEMENT
     * FUNCTIONS bytes 0 and 1 (SPC-4 §6.36): {@code byte0 << 8 | byte1}. Zero until a layer declares them.
     */
    public void supportedTaskManagement(int bits) { this.supportedTaskManagement = bits & 0xFFFF; }

    public int supportedTaskManagement() { return supportedTaskManagement; }

    // ======================================== sessions =====================================================

    /**
     * Registers a new I_T nexus. The initiator must have an ACL on the port, or the port must be in demo mode.
     *
     * @param initiatorPortName the initiator port's SCSI name (iSCSI: InitiatorName + ",i,0x" + ISID)
     * @throws IllegalArgumentException when the port does not admit the initiator (the fabric fails the login)
     */
    public Session openSession(TargetPort port, Fabric fabric, String initiatorName, String initiatorPortName) {
        if (!port.admits(initiatorName)) {
            throw new IllegalArgumentException("initiator " + initiatorName + " has no access to " + port.portName());
        }
        NodeAcl acl = port.acl(initiatorName);
        port.listener(portListener); // also wires ports created directly on a ScsiTarget
        Session s = new Session(this, port, fabric, initiatorName, initiatorPortName, acl, config.commandPoolSize());
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

    // ======================================== the pipeline =================================================

    /** Hands a command to the core. Completion arrives through the session's {@link Fabric#complete}. */
    public void submit(TargetCommand cmd) {
        if (!cmd.markSubmitted()) {
            throw new IllegalStateException("command submitted twice or not from Session.newCommand: " + cmd);
        }
        try {
            if (prepare(cmd)) {
                runGates(cmd);
            }
        } catch (RuntimeException | Error e) {
            internalFailure(cmd, e);
        }
    }

    /** Continues a command a gate had deferred, with the gate after it. Any thread. */
    public void resume(TargetCommand cmd) {
        try {
            cmd.gatesPassed = cmd.gateIndex + 1;
            cmd.gateIndex++;
            runGates(cmd);
        } catch (RuntimeException | Error e) {
            internalFailure(cmd, e);
        }
    }

    /** @return true to continue to the gates; false when the command already completed (failed). */
    private boolean prepare(TargetCommand cmd) {
        byte[] cdb = cmd.cdb();
        if (cmd.cdbLength() < 6) {
            return failNow(cmd, SenseReason.INVALID_FIELD_IN_CDB);
        }
        int lunNumber = LunAddress.decode(cmd.lun());
        Session.LunMap map = cmd.session().lunMap(); // one read: the LUN and its runtime belong together
        SessionLun sl = lunNumber >= 0 && lunNumber != LunAddress.DECODED_WLUN_REPORT_LUNS
                && lunNumber < map.luns().length ? map.luns()[lunNumber] : null;
        CommandTable table;
        if (sl != null) {
            cmd.sessionLun = sl;
            cmd.device = sl.device();
            cmd.runtime = map.runtimes()[lunNumber];
            table = cmd.runtime.commandTable();
        } else {
            table = CommandTables.noLun();
        }
        CommandDescriptor d = table.lookup(cdb);
        if (d == null) {
            if (sl == null && lunNumber != LunAddress.DECODED_WLUN_REPORT_LUNS) {
                return failNow(cmd, SenseReason.LOGICAL_UNIT_NOT_SUPPORTED);
            }
            if (table.lookupStatus(cdb) == CommandTable.NO_OPCODE) {
                return failNow(cmd, SenseReason.INVALID_COMMAND_OPERATION_CODE);
            }
            boolean variable = (cdb[0] & 0xFF) == ScsiOpcode.VARIABLE_LENGTH;
            cmd.failCdbField(variable ? 8 : 1, variable ? 7 : 4);
            return finishNow(cmd);
        }
        cmd.descriptor = d;
        return checkCdb(cmd, d) && checkLengths(cmd, d);
    }

    private boolean checkCdb(TargetCommand cmd, CommandDescriptor d) {
        byte[] cdb = cmd.cdb();
        if (cmd.cdbLength() < d.cdbLength()) {
            return failNow(cmd, SenseReason.INVALID_FIELD_IN_CDB);
        }
        if (d.opcode() == ScsiOpcode.VARIABLE_LENGTH && (cdb[7] & 0xFF) + 8 != d.cdbLength()) {
            cmd.failCdbField(7, 7);
            return finishNow(cmd);
        }
        int bad = CommandTable.firstReservedBit(cdb, d);
        if (bad >= 0) {
            cmd.failCdbField(bad >>> 3, bad & 7);
            return finishNow(cmd);
        }
        if (cmd.taskAttribute() == TaskAttribute.ACA) {
            return failNow(cmd, SenseReason.ACA_NOT_SUPPORTED);
        }
        return true;
    }

    private boolean checkLengths(TargetCommand cmd, CommandDescriptor d) {
        long spdtl = d.transferLength().bytes(cmd.cdb(), cmd.device);
        cmd.cdbTransferLength = spdtl;
        if (d.direction() == CommandDescriptor.DATA_OUT) {
            long expected = cmd.expectedDataOutLength();
            if (spdtl > expected && d.has(CommandDescriptor.TRUNCATABLE_DATA_OUT) && cmd.device != null
                    && expected % cmd.device.blockSize() == 0 && expected <= cmd.dataOutLimitRaw()) {
                // RFC 7143 §11.4.5.2 / FCP-4 §9.4.2: run on the expected (whole) blocks only, report the overflow
                cmd.dataOutMismatch = true; // keeps the overflow residual through finish()
                cmd.setResidualFromCounts(spdtl, expected);
                cmd.cdbTransferLength = expected;
                return true;
            }
            if ((spdtl > expected || spdtl > cmd.dataOutLimitRaw()
                    || (d.has(CommandDescriptor.EXACT_DATA_OUT) && spdtl != expected)) && writeProtected(cmd, d)) {
                // SBC-4 §4.11: a write to a write-protected LU is DATA PROTECT / WRITE PROTECTED whatever its
                // Data-Out (libiscsi ReadOnly.ReadOnlySBC: WRITE SAME UNMAP without data); execute() reports it
                cmd.dataOutMismatch = true;
                cmd.setResidualFromCounts(spdtl, expected);
                return true;
            }
            if (spdtl > expected || spdtl > cmd.dataOutLimitRaw()) {
                // SAM-5 §5.4.3: the device server cannot request Data-Out beyond the expected length
                cmd.dataOutMismatch = true;
                cmd.setResidualFromCounts(spdtl, expected);
                return failNow(cmd, SenseReason.INVALID_FIELD_IN_INFORMATION_UNIT);
            }
            if (d.has(CommandDescriptor.EXACT_DATA_OUT) && spdtl != expected) {
                cmd.dataOutMismatch = true;
                cmd.setResidualFromCounts(spdtl, expected);
                return failNow(cmd, SenseReason.INVALID_FIELD_IN_CDB);
            }
        }
        return true;
    }

    private static boolean writeProtected(TargetCommand cmd, CommandDescriptor d) {
        return cmd.device != null && d.has(CommandDescriptor.WRITES_MEDIUM)
                && (cmd.device.writeProtected() || cmd.sessionLun.readOnly());
    }

    private void runGates(TargetCommand cmd) {
        for (int i = cmd.gateIndex; i < gates.length; i++) {
            CommandGate g = gates[i];
            cmd.gateIndex = i;
            if (g == null) {
                continue;
            }
            int r = g.enter(cmd);
            if (r == CommandGate.DEFER) {
                return;
            }
            cmd.gatesPassed = i + 1;
            if (r == CommandGate.FAIL) {
                complete(cmd);
                return;
            }
        }
        cmd.gateIndex = gates.length;
        execute(cmd);
    }

    private void execute(TargetCommand cmd) {
        CommandDescriptor d = cmd.descriptor;
        Device dev = cmd.device;
        if (dev != null) {
            BackgroundOperation op = dev.operation(); // volatile read, pairs with Device.startOperation/endOperation
            if (op != null && !d.has(CommandDescriptor.NO_LUN_OK)) {
                // SBC-4 §4.11.1: while a sanitize runs, all but INQUIRY, REPORT LUNS and REQUEST SENSE are refused
                cmd.failWithProgress(op.notReadyReason(), op.progressIndication());
                complete(cmd);
                return;
            }
        }
        if (dev != null && d.has(CommandDescriptor.MEDIUM_ACCESS)) {
            if (!dev.mediumLoaded()) {
                cmd.fail(SenseReason.MEDIUM_NOT_PRESENT);
                complete(cmd);
                return;
            }
            if (dev.sanitizeFailed() && d.opcode() != ScsiOpcode.SANITIZE) { // SBC-4 §4.11.4: failure mode
                cmd.fail(SenseReason.SANITIZE_COMMAND_FAILED);
                complete(cmd);
                return;
            }
        }
        if (writeProtected(cmd, d)) {
            cmd.fail(SenseReason.WRITE_PROTECTED);
            complete(cmd);
            return;
        }
        IoQueue q = dev != null && d.has(CommandDescriptor.BACKSTORE_IO) ? cmd.runtime.ioQueue() : null;
        if (q != null) {
            if (!q.offer(cmd, queuedExecute, queuedComplete)) {
                cmd.fail(SenseReason.TASK_SET_FULL);
                complete(cmd);
            }
            return;
        }
        runHandler(cmd);
    }

    private void runHandler(TargetCommand cmd) {
        if (runQueued(cmd)) {
            complete(cmd);
        }
    }

    /** Runs the command's handler; true when it is done and to be completed (false: completed, or later). */
    private boolean runQueued(TargetCommand cmd) {
        if (cmd.abortRequested()) {
            return true; // SAM-5 §7.2: an aborted task that has not started does no work
        }
        int r;
        try {
            r = cmd.descriptor.handler().execute(cmd);
        } catch (RuntimeException | Error e) {
            internalFailure(cmd, e);
            return false;
        }
        return r == CommandDescriptor.DONE;
    }

    private boolean failNow(TargetCommand cmd, SenseReason r) {
        cmd.fail(r);
        return finishNow(cmd);
    }

    private boolean finishNow(TargetCommand cmd) {
        complete(cmd);
        return false;
    }

    /** Completes a command exactly once: gate exits, sense bytes, residuals, then the fabric. Any thread. */
    public void complete(TargetCommand cmd) {
        if (!cmd.markCompleted()) {
            return;
        }
        long word = cmd.markAbortCompleted();
        boolean aborted = (word & TargetCommand.ABORT_REQUESTED) != 0;
        if (aborted) {
            cmd.applyAbort((word & TargetCommand.ABORT_TAS) != 0);
        }
        for (int i = cmd.gatesPassed - 1; i >= 0; i--) {
            CommandGate g = gates[i];
            if (g != null) {
                g.exit(cmd);
            }
        }
        Device dev = cmd.device;
        boolean dsense = dev != null && dev.modePages().descriptorSense();
        cmd.finish(dsense);
        if (dev != null) {
            recordStats(dev, cmd);
        }
        try {
            cmd.session().fabric().complete(cmd);
        } finally {
            if (aborted) { // even when the fabric threw: the TMF waiting for this command must still answer
                cmd.markDelivered(word | TargetCommand.ABORT_COMPLETED);
                taskManagement.abortedCommandDelivered();
            }
        }
    }

    private static void recordStats(Device dev, TargetCommand cmd) {
        CommandDescriptor d = cmd.descriptor();
        DeviceStats.Kind kind;
        long bytes;
        if (d != null && d.has(CommandDescriptor.WRITES_MEDIUM)) {
            kind = DeviceStats.Kind.WRITE;
            bytes = cmd.status() == 0 ? cmd.dataOutLength() : 0;
        } else if (d != null && d.has(CommandDescriptor.MEDIUM_ACCESS) && d.direction() == CommandDescriptor.DATA_IN) {
            kind = DeviceStats.Kind.READ;
            bytes = cmd.dataInSendLength();
        } else {
            kind = DeviceStats.Kind.OTHER;
            bytes = 0;
        }
        dev.stats().record(kind, bytes, System.nanoTime() - cmd.submitNanos, cmd.status(), cmd.aborted());
    }

    private void internalFailure(TargetCommand cmd, Throwable e) {
        if (e instanceof VirtualMachineError vme && !(e instanceof OutOfMemoryError)) {
            throw vme;
        }
        if (!cmd.inCore()) {
            // thrown after completion, i.e. by the fabric's complete(): the result stands; the error goes back
            if (e instanceof RuntimeException re) {
                throw re;
            }
            throw (Error) e;
        }
        cmd.fail(SenseReason.INTERNAL_TARGET_FAILURE);
        complete(cmd);
    }

    /** A text tree of targets, ports, LUNs, devices (queues, task set counters) and sessions (UAs pending). */
    public String dump() { return CoreDump.dump(this, new ArrayList<>(devices.values())); }

    // ======================================== shutdown =====================================================

    /** Closes every session and device (I/O queues drain, backstores close). */
    @Override
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
            throw new java.io.UncheckedIOException(first);
        }
    }
}
