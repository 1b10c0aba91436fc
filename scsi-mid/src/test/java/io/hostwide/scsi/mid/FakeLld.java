package io.hostwide.scsi.mid;

import io.hostwide.scsi.spec.FixedSense;
import io.hostwide.scsi.spec.ScsiOpcode;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.function.ToIntFunction;

/**
 * A hand-stepped HBA for midlayer tests: block commands wait in {@link #issued} until the test completes them;
 * internal commands (TEST UNIT READY after a reset) are answered GOOD inline. Refusals and EH outcomes are scripted.
 */
final class FakeLld implements LowLevelDriver {
    final Deque<ScsiCmnd> issued = new ArrayDeque<>();
    final List<String> log = new ArrayList<>();
    /** Return code per queuecommand call (OK unless the test says otherwise). */
    ToIntFunction<ScsiCmnd> refuse = c -> OK;
    int queueCommandCalls;
    /** {@link ScsiCmnd#isLast()} of each block command offered, refused ones included. */
    final List<Boolean> lastFlags = new ArrayList<>();
    /** The hardware queue of each {@code commit_rqs} call. */
    final List<Integer> commits = new ArrayList<>();
    EhResult abortResult = EhResult.FAILED;
    EhResult lunResetResult = EhResult.FAILED;
    EhResult targetResetResult = EhResult.FAILED;
    EhResult hostResetResult = EhResult.SUCCESS;

    @Override
    public String name() {
        return "fake";
    }

    @Override
    public synchronized int queueCommand(ScsiCmnd cmd) {
        if (cmd.isInternal()) {
            log.add("internal " + Integer.toHexString(cmd.opcode()));
            cmd.doneGood(0);
            return OK;
        }
        queueCommandCalls++;
        lastFlags.add(cmd.isLast());
        int r = refuse.applyAsInt(cmd);
        if (r != OK) {
            log.add("refused " + Integer.toHexString(r));
            return r;
        }
        issued.add(cmd);
        return OK;
    }

    @Override
    public synchronized void commitRqs(int hwQueue) {
        commits.add(hwQueue);
    }

    synchronized ScsiCmnd take() {
        return issued.pollFirst();
    }

    synchronized int issuedCount() {
        return issued.size();
    }

    void completeGood(ScsiCmnd c) {
        c.doneGood(0);
    }

    void completeStatus(ScsiCmnd c, int status) {
        c.done(HostByte.DID_OK, status, null, 0, 0, 0);
    }

    void completeSense(ScsiCmnd c, int key, int asc, int ascq) {
        byte[] s = new byte[FixedSense.LENGTH];
        FixedSense.encode(s, key, asc << 8 | ascq, false, 0, -1);
        c.done(HostByte.DID_OK, 0x02, s, 0, s.length, c.transferLength());
    }

    @Override
    public synchronized EhResult ehAbort(ScsiCmnd cmd) {
        log.add("abort");
        if (abortResult == EhResult.SUCCESS) {
            issued.remove(cmd);
        }
        return abortResult;
    }

    @Override
    public synchronized EhResult ehDeviceReset(ScsiDevice sdev) {
        log.add("lun reset");
        if (lunResetResult == EhResult.SUCCESS) {
            issued.removeIf(c -> c.device() == sdev);
        }
        return lunResetResult;
    }

    @Override
    public synchronized EhResult ehTargetReset(ScsiTarget t) {
        log.add("target reset");
        if (targetResetResult == EhResult.SUCCESS) {
            issued.removeIf(c -> c.device().target() == t);
        }
        return targetResetResult;
    }

    @Override
    public synchronized EhResult ehHostReset(ScsiHost host) {
        log.add("host reset");
        if (hostResetResult == EhResult.SUCCESS) {
            issued.clear();
        }
        return hostResetResult;
    }

    static boolean isRead(ScsiCmnd c) {
        return c.opcode() == ScsiOpcode.READ_10;
    }
}
