package io.hostwide.tcm.core;

import io.hostwide.scsi.spec.LunAddress;
import io.hostwide.scsi.spec.ScsiOpcode;
import io.hostwide.scsi.spec.TaskAttribute;
import io.hostwide.tcm.alua.AluaGate;
import io.hostwide.tcm.dispatch.Command;
import io.hostwide.tcm.dispatch.CommandDescriptor;
import io.hostwide.tcm.dispatch.CommandGate;
import io.hostwide.tcm.dispatch.CommandTable;
import io.hostwide.tcm.dispatch.GateSlot;
import io.hostwide.tcm.lu.BackgroundOperation;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.lu.DeviceStats;
import io.hostwide.tcm.lu.SessionLun;
import io.hostwide.tcm.pr.ReservationGate;
import io.hostwide.tcm.spc.UnitAttentionGate;
import io.hostwide.tcm.spi.Fabric;
import io.hostwide.tcm.spi.SenseReason;

/**
 * The command pipeline every fabric feeds (LIO's target_core_transport): a submitted command goes through LUN
 * lookup in its session's map (ACL or demo mode) → command table row (INVALID COMMAND OPERATION CODE / service
 * action check) → CDB checks (length, reserved bits against the usage data, CONTROL byte, ACA) → transfer length vs
 * the transport's expected length → gates in {@link GateSlot} order (unit attention, reservation, ALUA, task
 * attribute) → medium / write-protect checks → handler, inline or on the device's I/O queue → completion (gate
 * exits, sense bytes, residuals, statistics) → {@link Fabric#complete}. Nothing a command carries throws out of
 * here. Any thread may submit, resume or complete.
 */
public final class Pipeline {
    private final CommandGate[] gates = new CommandGate[GateSlot.values().length];
    private final TaskAborter aborts;
    /** Bound once: the I/O queue's steps for every queued command (no per-command method reference). */
    private final IoQueue.Work queuedExecute = this::runQueued;
    private final IoQueue.Completion queuedComplete = this::complete;
    private volatile int supportedTaskManagement;

    /** A pipeline of {@code registry}'s sessions with the default gates: UA, reservation, ALUA, task attribute. */
    public Pipeline(Registry registry) {
        this.aborts = new TaskAborter(registry, this);
        gates[GateSlot.UNIT_ATTENTION.ordinal()] = new UnitAttentionGate();
        gates[GateSlot.RESERVATION.ordinal()] = new ReservationGate();
        gates[GateSlot.ALUA.ordinal()] = new AluaGate(new AluaGate.Continuation() {
            @Override
            public void resume(Command c) { Pipeline.this.resume((CoreCommand) c); }

            @Override
            public void complete(Command c) { failedAfterDefer((CoreCommand) c); }
        });
        gates[GateSlot.TASK_ATTRIBUTE.ordinal()] = new TaskAttributeGate(this);
    }

    /** Finds and aborts commands for task management (SAM-5 §7); tells it when aborted ones were delivered. */
    public TaskAborter aborts() { return aborts; }

    /** Installs the gate of a slot (reservation, ALUA, task attribute layers plug in here); null removes it. */
    public void installGate(GateSlot slot, CommandGate gate) { gates[slot.ordinal()] = gate; }

    public CommandGate gate(GateSlot slot) { return gates[slot.ordinal()]; }

    /**
     * The task management functions the installed TMF layer implements, as REPORT SUPPORTED TASK MANAGEMENT
     * FUNCTIONS bytes 0 and 1 (SPC-4 §6.36): {@code byte0 << 8 | byte1}. Zero until a layer declares them.
     */
    public void supportedTaskManagement(int bits) { this.supportedTaskManagement = bits & 0xFFFF; }

    public int supportedTaskManagement() { return supportedTaskManagement; }

    /** Hands a command to the core. Completion arrives through the session's {@link Fabric#complete}. */
    void submit(CoreCommand cmd) {
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
    void resume(CoreCommand cmd) {
        try {
            cmd.gatesPassed = cmd.gateIndex + 1;
            cmd.gateIndex++;
            runGates(cmd);
        } catch (RuntimeException | Error e) {
            internalFailure(cmd, e);
        }
    }

    /** Completes a command a gate had deferred and then failed (or that was aborted while deferred). Any thread. */
    private void failedAfterDefer(CoreCommand cmd) {
        cmd.gatesPassed = cmd.gateIndex + 1; // as a gate that fails at once (runGates)
        complete(cmd);
    }

    /** @return true to continue to the gates; false when the command already completed (failed). */
    private boolean prepare(CoreCommand cmd) {
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

    private boolean checkCdb(CoreCommand cmd, CommandDescriptor d) {
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

    private boolean checkLengths(CoreCommand cmd, CommandDescriptor d) {
        long spdtl = d.transferLength().bytes(cmd.cdb(), cmd.device);
        cmd.cdbTransferLength = spdtl;
        if (d.direction() == CommandDescriptor.DATA_OUT) {
            long expected = cmd.expectedDataOutLength();
            if (spdtl > expected && d.has(CommandDescriptor.TRUNCATABLE_DATA_OUT) && cmd.device != null
                    && expected % cmd.device.blockSize() == 0 && expected <= cmd.dataOutLimitRaw()) {
                // RFC 7143 §11.4.5.2 / FCP-4 §9.4.2: run on the expected (whole) blocks only, report the overflow
                cmd.dataOutMismatch(spdtl, expected); // the overflow residual stands through finish()
                cmd.cdbTransferLength = expected;
                return true;
            }
            if ((spdtl > expected || spdtl > cmd.dataOutLimitRaw()
                    || (d.has(CommandDescriptor.EXACT_DATA_OUT) && spdtl != expected)) && writeProtected(cmd, d)) {
                // SBC-4 §4.11: a write to a write-protected LU is DATA PROTECT / WRITE PROTECTED whatever its
                // Data-Out (libiscsi ReadOnly.ReadOnlySBC: WRITE SAME UNMAP without data); execute() reports it
                cmd.dataOutMismatch(spdtl, expected);
                return true;
            }
            if (spdtl > expected || spdtl > cmd.dataOutLimitRaw()) {
                // SAM-5 §5.4.3: the device server cannot request Data-Out beyond the expected length
                cmd.dataOutMismatch(spdtl, expected);
                return failNow(cmd, SenseReason.INVALID_FIELD_IN_INFORMATION_UNIT);
            }
            if (d.has(CommandDescriptor.EXACT_DATA_OUT) && spdtl != expected) {
                cmd.dataOutMismatch(spdtl, expected);
                return failNow(cmd, SenseReason.INVALID_FIELD_IN_CDB);
            }
        }
        return true;
    }

    private static boolean writeProtected(CoreCommand cmd, CommandDescriptor d) {
        return cmd.device != null && d.has(CommandDescriptor.WRITES_MEDIUM)
                && (cmd.device.writeProtected() || cmd.sessionLun.readOnly());
    }

    private void runGates(CoreCommand cmd) {
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

    private void execute(CoreCommand cmd) {
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
        IoQueue q = dev != null && d.has(CommandDescriptor.BACKSTORE_IO)
                && !(d.has(CommandDescriptor.ASYNC_BACKSTORE_IO) && cmd.runtime.asyncBackstore())
                ? cmd.runtime.ioQueue() : null;
        if (q != null) {
            if (d.has(CommandDescriptor.TRY_NOWAIT) && cmd.runtime.tryNowait(d) && runNowait(cmd)) {
                return;
            }
            if (!q.offer(cmd, queuedExecute, queuedComplete)) {
                cmd.fail(SenseReason.TASK_SET_FULL);
                complete(cmd);
            }
            return;
        }
        runHandler(cmd);
    }

    private void runHandler(CoreCommand cmd) {
        if (runQueued(cmd)) {
            complete(cmd);
        }
    }

    /**
     * Tries the handler on this thread without blocking (CommandDescriptor.TRY_NOWAIT); true when that settled the
     * command (completed now or later), false when it would block and is to be queued.
     */
    private boolean runNowait(CoreCommand cmd) {
        if (cmd.abortRequested()) {
            complete(cmd); // SAM-5 §7.2, as runQueued: an aborted task that has not started does no work
            return true;
        }
        int r;
        cmd.nowait = true;
        try {
            r = cmd.descriptor.handler().execute(cmd);
        } catch (RuntimeException | Error e) {
            internalFailure(cmd, e);
            return true;
        } finally {
            cmd.nowait = false;
        }
        boolean settled = r != CommandDescriptor.WOULD_BLOCK;
        cmd.runtime.nowaitOutcome(cmd.descriptor, settled);
        if (r == CommandDescriptor.DONE) {
            complete(cmd);
        }
        return settled;
    }

    /** Runs the command's handler; true when it is done and to be completed (false: completed, or later). */
    private boolean runQueued(CoreCommand cmd) {
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

    private boolean failNow(CoreCommand cmd, SenseReason r) {
        cmd.fail(r);
        return finishNow(cmd);
    }

    private boolean finishNow(CoreCommand cmd) {
        complete(cmd);
        return false;
    }

    /** Completes a command exactly once: gate exits, sense bytes, residuals, then the fabric. Any thread. */
    void complete(CoreCommand cmd) {
        if (!cmd.markCompleted()) {
            return;
        }
        long word = cmd.markAbortCompleted();
        boolean aborted = (word & CoreCommand.ABORT_REQUESTED) != 0;
        if (aborted) {
            cmd.applyAbort((word & CoreCommand.ABORT_TAS) != 0);
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
                cmd.markDelivered(word | CoreCommand.ABORT_COMPLETED);
                aborts.delivered();
            }
        }
    }

    private static void recordStats(Device dev, CoreCommand cmd) {
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
        long latency = System.nanoTime() - cmd.submitNanos;
        int status = cmd.status();
        boolean aborted = cmd.aborted();
        dev.stats().record(kind, bytes, latency, status, aborted);
        SessionLun sl = cmd.sessionLun;
        if (sl != null) { // per exported LUN and per I_T_L nexus: the same striped counters, no lock, no allocation
            sl.lun().stats().record(kind, bytes, latency, status, aborted);
            sl.stats().record(kind, bytes, latency, status, aborted);
        }
    }

    private void internalFailure(CoreCommand cmd, Throwable e) {
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
}
