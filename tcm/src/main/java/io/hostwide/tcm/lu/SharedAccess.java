package io.hostwide.tcm.lu;

import io.hostwide.tcm.spi.SenseReason;

import java.util.List;
import java.util.function.Consumer;

/**
 * The ALUA policy of a logical unit that several gateway processes export, only one of which owns the storage at a
 * time (an RBD image's exclusive lock): the ALUA gate asks it before a command that writes the medium runs through
 * an active group, and SET TARGET PORT GROUPS hands it the states asked for, since here a state follows ownership
 * rather than a table. Set on {@link AluaGroups#shared(SharedAccess)}; absent for ordinary LUs.
 */
public interface SharedAccess {

    /** {@link #parkWrite}: the write waits; its {@link WriteWaiter} is called once, later, on another thread. */
    int PARKED = 1;
    /** {@link #parkWrite}: the write ends NOT READY / ASYMMETRIC ACCESS STATE TRANSITION (04h/0Ah) now. */
    int REFUSE = 2;

    /**
     * A write parked by {@link #parkWrite} until this gateway may write (it owns the storage) or the wait's bound
     * passed: {@link #decided} is called exactly once — from the policy's thread, its timer's, or task management's
     * ({@link #releaseAborted}) — never from inside {@code parkWrite}.
     */
    interface WriteWaiter {
        /** Whether task management aborted the command meanwhile: it is then let go at once (decided false). */
        boolean aborted();

        /**
         * {@code admitted} true: run the write now; false: end it 04h/0Ah (bound passed, takeover failed).
         *
         * @param nanosLeft what is left of the wait's bound (to park again for, when the lock left again at once)
         */
        void decided(boolean admitted, long nanosLeft);
    }

    /**
     * Whether a command that writes the medium may run through {@code g} now: a volatile read and a counter's
     * increment when this gateway owns the LU, no allocation. True: the caller owes {@link #writeDone()} when the
     * command completes (a handover waits for the admitted writes). False: ask {@link #parkWrite}.
     */
    boolean admitsWrite(TargetPortGroup g);

    /** A write {@link #admitsWrite} admitted through this gateway's group has completed. */
    default void writeDone() {}

    /**
     * A write {@link #admitsWrite} did not admit: the policy parks it ({@link #PARKED}; {@code w} is called later)
     * while it moves ownership here, or refuses it ({@link #REFUSE}).
     *
     * @param waitNanos how long it may wait at most; negative: the policy's own bound
     */
    int parkWrite(TargetPortGroup g, WriteWaiter w, long waitNanos);

    /** Task management: lets every parked write that {@link WriteWaiter#aborted() was aborted} go now. */
    void releaseAborted();

    /**
     * SET TARGET PORT GROUPS (SPC-4 §6.40) asked for {@code states[i]} of {@code groups.get(i)}, already validated;
     * {@code done} gets null once the transitions are carried out, or the reason to fail the command with. Called
     * on the command's thread; {@code done} may run on another.
     */
    void explicitRequest(List<TargetPortGroup> groups, int[] states, Consumer<SenseReason> done);
}
