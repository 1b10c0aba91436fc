package io.hostwide.iscsi.initiator;

import io.hostwide.scsi.mid.ScsiCmnd;
import io.hostwide.scsi.mid.ScsiDevice;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The driver's state for one {@link ScsiCmnd} slot ({@code struct iscsi_task}). {@code itt} is the arbiter of the
 * current issue: the issue that owns ITT x ends exactly once, by whichever of response, abort, reset or session
 * failure first CASes x → {@link #NONE}; PDUs of older issues carry other ITTs (the slot's generation is in the tag)
 * and are dropped.
 */
final class IscsiTask {
    /** 0xffffffff, the reserved tag (RFC 7143 §11.18.2): never a command's ITT, so it means "nothing outstanding". */
    static final int NONE = 0xffff_ffff;

    private static final VarHandle ITT;

    static {
        try {
            ITT = MethodHandles.lookup().findVarHandle(IscsiTask.class, "itt", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final ScsiCmnd cmd;
    final int slot;
    final boolean internal;
    @SuppressWarnings("unused") private volatile int itt = NONE;
    /** The ITT whose Data-In the reader is copying into the buffer right now, else NONE (see {@link #beginCopy}). */
    private volatile int copying = NONE;

    // Written by the issuer before publish(); read by the connection reader after it sees the ITT.
    int cmdSn;
    long lun;
    ScsiDevice device;
    IscsiConnection conn;
    /** Data-In bytes placed so far (the connection's receiver only; the receive lock orders its holders). */
    int received;
    /** An internal task's slot goes back to the table when its issue ends. */
    boolean released;

    IscsiTask(ScsiCmnd cmd, int slot, boolean internal) {
        this.cmd = cmd;
        this.slot = slot;
        this.internal = internal;
    }

    /**
     * Makes issue {@code newItt} current. A volatile write, not just a release: with the volatile read of the
     * session's live state that follows the send (InitiatorSession#issue) and the sweep's volatile read of
     * {@code itt} after it clears the live state, it forms the Dekker pair that guarantees a command issued on a
     * dying session is failed by the sweep or by its issuer.
     */
    void publish(int newItt) {
        ITT.setVolatile(this, newItt);
    }

    int itt() {
        return (int) ITT.getVolatile(this);
    }

    /** Ends issue {@code expected}; true for exactly one caller per issue (acq/rel CAS against publish/claim). */
    boolean claim(int expected) {
        if (expected == NONE || !ITT.compareAndSet(this, expected, NONE)) {
            return false;
        }
        // A reader that saw the issue live before this claim may still be copying Data-In into the buffer; the
        // buffer goes back to its owner only after that copy (at most one segment) has ended.
        while (copying == expected) {
            Thread.onSpinWait();
        }
        return true;
    }

    /**
     * The reader is about to copy Data-In of issue {@code i}: true if the issue is still live. The volatile write of
     * {@code copying} before the volatile read of {@code itt} pairs with {@link #claim}'s CAS of {@code itt} before
     * its read of {@code copying} (a Dekker pair): either the reader sees the claim and copies nothing, or the
     * claimer sees the copy and waits for {@link #endCopy}.
     */
    boolean beginCopy(int i) {
        copying = i;
        if (itt() != i) {
            copying = NONE;
            return false;
        }
        return true;
    }

    void endCopy() {
        copying = NONE;
    }
}
