package io.hostwide.tcm.alua;

import io.hostwide.tcm.dispatch.Command;
import io.hostwide.tcm.dispatch.CommandDescriptor;
import io.hostwide.tcm.dispatch.CommandGate;
import io.hostwide.tcm.lu.AluaAccessState;
import io.hostwide.tcm.lu.SharedAccess;
import io.hostwide.tcm.lu.TargetPortGroup;
import io.hostwide.tcm.lu.SessionLun;
import io.hostwide.tcm.spi.SenseReason;

/**
 * The {@link io.hostwide.tcm.dispatch.GateSlot#ALUA} gate (SPC-4 §5.15.2.4): a command reaching the LU through a port
 * whose group is not active runs only if its row allows that state ({@link CommandDescriptor#aluaAllowed()}),
 * else it ends NOT READY with LOGICAL UNIT NOT ACCESSIBLE: ASYMMETRIC ACCESS STATE TRANSITION (04h/0Ah), TARGET
 * PORT IN STANDBY STATE (04h/0Bh), TARGET PORT IN UNAVAILABLE STATE (04h/0Ch); offline lets only INQUIRY, REPORT
 * LUNS and REQUEST SENSE through (04h/12h otherwise). Two volatile reads (the LUN's group, the group's state
 * record), no lock. A command that writes the medium of an LU shared by several gateways ({@link SharedAccess})
 * runs through an active group only when the LU's policy admits it: at once when this gateway holds the storage's
 * lock (the policy counts it until {@link #exit}, so that a handover of the lock waits for it); else the policy may
 * park it ({@link #DEFER}) while the lock comes here, and the command then continues (or ends 04h/0Ah when the
 * wait's bound passed) through the {@link Continuation}, on the policy's thread, never blocking the thread that
 * submitted it.
 */
public final class AluaGate implements CommandGate {

    /** How a command this gate parked goes on: the core's pipeline. */
    public interface Continuation {
        /** The command passed this gate after waiting: on to the next gate. */
        void resume(Command cmd);

        /** The command failed at this gate after waiting ({@link Command#fail} was called, or it was aborted). */
        void complete(Command cmd);
    }

    private final Continuation continuation;

    public AluaGate(Continuation continuation) { this.continuation = continuation; }

    @Override
    public int enter(Command cmd) {
        SessionLun sl = cmd.sessionLun();
        if (sl == null) {
            return PASS;
        }
        TargetPortGroup g = sl.lun().aluaGroup();
        AluaAccessState st = g.accessState();
        CommandDescriptor d = cmd.descriptor();
        if (st.active()) {
            SharedAccess shared;
            if (!d.has(CommandDescriptor.WRITES_MEDIUM) || (shared = sl.lun().device().alua().shared()) == null) {
                return PASS;
            }
            if (shared.admitsWrite(g)) {
                cmd.sharedWrite(shared);
                return PASS;
            }
            // the slow path: this gateway does not hold the lock
            if (shared.parkWrite(g, new Parked(cmd, shared, g), -1) == SharedAccess.PARKED) {
                return DEFER;
            }
            cmd.fail(SenseReason.ALUA_TRANSITIONING);
            return FAIL;
        }
        int allowed = d.aluaAllowed();
        SenseReason r = switch (st.state()) {
            case AluaAccessState.STANDBY -> (allowed & CommandDescriptor.ALUA_STANDBY) != 0 ? null : SenseReason.ALUA_STANDBY;
            case AluaAccessState.UNAVAILABLE ->
                    (allowed & CommandDescriptor.ALUA_UNAVAILABLE) != 0 ? null : SenseReason.ALUA_UNAVAILABLE;
            case AluaAccessState.TRANSITIONING ->
                    (allowed & CommandDescriptor.ALUA_TRANSITIONING) != 0 ? null : SenseReason.ALUA_TRANSITIONING;
            default -> d.has(CommandDescriptor.NO_LUN_OK) ? null : SenseReason.ALUA_OFFLINE;
        };
        if (r == null) {
            return PASS;
        }
        cmd.fail(r);
        return FAIL;
    }

    @Override
    public void exit(Command cmd) {
        SharedAccess shared = cmd.sharedWrite();
        if (shared != null) {
            cmd.sharedWrite(null);
            shared.writeDone();
        }
    }

    /**
     * A write waiting for the lock; {@link #decided} runs once, on the policy's thread (or the bound's timer, or task
     * management's). Admitted, it is counted like a write admitted at once; when the lock left again before it
     * could be counted, it parks again for what is left of its bound.
     */
    private final class Parked implements SharedAccess.WriteWaiter {
        private final Command cmd;
        private final SharedAccess shared;
        private final TargetPortGroup group;

        Parked(Command cmd, SharedAccess shared, TargetPortGroup group) {
            this.cmd = cmd;
            this.shared = shared;
            this.group = group;
        }

        @Override
        public boolean aborted() { return cmd.abortRequested(); }

        @Override
        public void decided(boolean admitted, long nanosLeft) {
            if (admitted && !cmd.abortRequested()) {
                if (shared.admitsWrite(group)) {
                    cmd.sharedWrite(shared);
                    continuation.resume(cmd);
                    return;
                }
                if (nanosLeft > 0 && shared.parkWrite(group, this, nanosLeft) == SharedAccess.PARKED) {
                    return;
                }
            }
            if (!cmd.abortRequested()) {
                cmd.fail(SenseReason.ALUA_TRANSITIONING);
            }
            continuation.complete(cmd);
        }
    }
}
