package io.hostwide.scsi.mid;

import io.hostwide.blk.exec.DelayedWork;
import io.hostwide.scsi.spec.ScsiOpcode;
import io.hostwide.scsi.spec.SenseKey;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * scsi_error.c (digest §4.8): a timed-out command is aborted first ({@code eh_abort_handler} after
 * {@link ScsiHostTemplate#abortDelayMillis}); if that fails, or it times out again after an abort, the host enters
 * RECOVERY, and once every in-flight command has completed or failed ({@code host_failed == host_busy}) the
 * handler escalates LUN reset → target reset → host reset, each followed by TEST UNIT READY, stopping when no
 * failed command is left; devices still failing are taken offline. Recovered commands are retried if allowed,
 * others finish with DID_TIME_OUT; then all queues re-run. Both steps run as kblockd work, so tests step them.
 *
 * <p>{@code eh_deadline} ({@link ScsiHostTemplate#ehDeadlineMillis}): recovery is timed from the first timeout;
 * once that long has passed, a pending abort is not sent ("eh timeout, not aborting") and the handler skips the
 * LUN and target resets it has not yet tried and goes straight to the host reset. After a successful host reset
 * every LUN of the host settles ({@link ScsiHostTemplate#resetSettleMillis}, {@code HOST_RESET_SETTLE_TIME}) before
 * it takes a new command, recovered retries included.
 */
public final class ErrorHandler {
    private static final int TUR_TRIES = 3;

    private final ScsiHost host;
    private final ConcurrentLinkedQueue<ScsiCmnd> abortQueue = new ConcurrentLinkedQueue<>();
    private final DelayedWork abortWork;
    private final DelayedWork ehWork;
    /** {@code eh_cmd_q}; guarded by this. */
    private final List<ScsiCmnd> ehQueue = new ArrayList<>();
    /** {@code host_failed}; guarded by this. */
    private int hostFailed;
    /** {@code shost->last_reset}: kblockd time recovery started (first timeout), 0 when not recovering. */
    private volatile long lastReset;
    /** Recoveries that hit {@code eh_deadline} and went straight to a host reset. */
    final AtomicLong deadlineEscalations = new AtomicLong();
    final AtomicLong aborts = new AtomicLong();
    final AtomicLong lunResets = new AtomicLong();
    final AtomicLong targetResets = new AtomicLong();
    final AtomicLong hostResets = new AtomicLong();
    final AtomicLong ehRuns = new AtomicLong();

    ErrorHandler(ScsiHost host) {
        this.host = host;
        this.abortWork = host.kblockd.newWork("host" + host.hostNo + "/tmf", this::abortRun);
        this.ehWork = host.kblockd.newWork("host" + host.hostNo + "/scsi_eh", this::unjamHost);
    }

    public long aborts() { return aborts.get(); }

    public long lunResets() { return lunResets.get(); }

    public long targetResets() { return targetResets.get(); }

    public long hostResets() { return hostResets.get(); }

    public long ehRuns() { return ehRuns.get(); }

    public synchronized int hostFailed() { return hostFailed; }

    public long deadlineEscalations() { return deadlineEscalations.get(); }

    /** {@code scsi_host_eh_past_deadline}: eh_deadline is on and recovery has run at least that long. */
    boolean pastDeadline() {
        long d = host.template.ehDeadlineMillis;
        long start = lastReset;
        return d >= 0 && start != 0 && host.kblockd.nanoTime() - start >= d * 1_000_000L;
    }

    /** Marks the start of recovery for eh_deadline, once ({@code if (!shost->last_reset) last_reset = jiffies}). */
    private void markRecoveryStart() {
        if (host.template.ehDeadlineMillis >= 0 && lastReset == 0) {
            synchronized (this) {
                if (lastReset == 0) {
                    lastReset = Math.max(1, host.kblockd.nanoTime());   // 0 means unset
                }
            }
        }
    }

    /** {@code scsi_abort_command}: the first timeout of a command schedules an abort; a second escalates. */
    void scheduleAbort(ScsiCmnd cmd) {
        markRecoveryStart();
        if (cmd.abortAttempted || host.state == HostState.RECOVERY) {
            add(cmd);
            return;
        }
        abortQueue.add(cmd);
        abortWork.queue(host.template.abortDelayMillis * 1_000_000L);
    }

    /** {@code scmd_eh_abort_handler}. */
    private void abortRun() {
        for (ScsiCmnd next = abortQueue.poll(); next != null; next = abortQueue.poll()) {
            ScsiCmnd cmd = next;
            if (host.state == HostState.RECOVERY || pastDeadline()) {
                add(cmd);   // past eh_deadline: "eh timeout, not aborting"
                continue;
            }
            aborts.incrementAndGet();
            EhResult r = callSafely(() -> host.lld.ehAbort(cmd));
            if (r != EhResult.SUCCESS) {
                add(cmd);
                continue;
            }
            cmd.abortAttempted = true;
            if (host.retryAllowed(cmd) && cmd.device.state == DeviceState.RUNNING) {
                cmd.retries++;
                cmd.device.retriesAfterEh.incrementAndGet();
                host.queueInsert(cmd, LowLevelDriver.DEVICE_BUSY);
            } else {
                cmd.device.retriesExhausted.incrementAndGet();
                host.finishTimedOut(cmd);
            }
        }
    }

    /** {@code scsi_eh_scmd_add}: host to RECOVERY, command queued, wake the handler when all in flight failed. */
    void add(ScsiCmnd cmd) {
        markRecoveryStart();
        cmd.device.failedToEh.incrementAndGet();
        synchronized (this) {
            host.state = HostState.RECOVERY;
            ehQueue.add(cmd);
            hostFailed++;
        }
        checkWake();
    }

    /** {@code scsi_eh_wakeup}: only when {@code host_failed == host_busy}. */
    void checkWake() {
        int failed;
        synchronized (this) {
            failed = hostFailed;
        }
        if (failed > 0 && failed == host.hostBusy()) {
            ehWork.queue(0);
        }
    }

    /** {@code scsi_unjam_host}. */
    private void unjamHost() {
        List<ScsiCmnd> work;
        synchronized (this) {
            if (ehQueue.isEmpty()) {
                return;
            }
            work = new ArrayList<>(ehQueue);
            ehQueue.clear();
        }
        ehRuns.incrementAndGet();
        List<ScsiCmnd> recovered = new ArrayList<>();
        // eh_deadline: once past it, the finer resets are skipped and the host reset follows at once.
        if (pastDeadline() || !lunResets(work, recovered) || !targetResets(work, recovered)) {
            deadlineEscalations.incrementAndGet();
        }
        hostReset(work, recovered);
        for (ScsiDevice d : devicesOf(work)) {
            d.state = DeviceState.OFFLINE;   // scsi_eh_offline_sdevs
        }
        recovered.addAll(work);
        flushDoneQueue(recovered);
        restartOperations(recovered.size());
    }

    /** LUN resets of the failing LUNs; false when eh_deadline passed before they were all tried. */
    private boolean lunResets(List<ScsiCmnd> work, List<ScsiCmnd> recovered) {
        for (ScsiDevice d : devicesOf(work)) {
            if (pastDeadline()) {
                return false;
            }
            lunResets.incrementAndGet();
            if (callSafely(() -> host.lld.ehDeviceReset(d)) == EhResult.SUCCESS && testUnitReady(d)) {
                moveOf(work, recovered, d, null);
            }
        }
        return true;
    }

    /** Target resets of the targets still failing; false when eh_deadline passed before they were all tried. */
    private boolean targetResets(List<ScsiCmnd> work, List<ScsiCmnd> recovered) {
        Set<ScsiTarget> targets = new LinkedHashSet<>();
        for (ScsiCmnd c : work) {
            targets.add(c.device.target);
        }
        for (ScsiTarget t : targets) {
            if (pastDeadline()) {
                return false;
            }
            targetResets.incrementAndGet();
            if (callSafely(() -> host.lld.ehTargetReset(t)) == EhResult.SUCCESS && allReady(t.devices)) {
                moveOf(work, recovered, null, t);
            }
        }
        return true;
    }

    private void hostReset(List<ScsiCmnd> work, List<ScsiCmnd> recovered) {
        if (work.isEmpty()) {
            return;
        }
        hostResets.incrementAndGet();
        if (callSafely(() -> host.lld.ehHostReset(host)) == EhResult.SUCCESS) {
            // HOST_RESET_SETTLE_TIME: every LUN of the host takes no new command for the settle time (the
            // kernel's handler sleeps it; here the LUNs refuse budget, so the retries below wait for it too).
            long settle = host.template.effectiveSettleMillis();
            for (ScsiDevice d : host.devices()) {
                d.settle(settle);
            }
            for (ScsiDevice d : devicesOf(work)) {
                if (testUnitReady(d)) {
                    moveOf(work, recovered, d, null);
                }
            }
        }
    }

    private boolean allReady(List<ScsiDevice> devices) {
        for (ScsiDevice d : devices) {
            if (!testUnitReady(d)) {
                return false;
            }
        }
        return true;
    }

    /** {@code scsi_eh_tur}: GOOD, or a unit attention (the reset's own) answered by a retry. */
    private boolean testUnitReady(ScsiDevice d) {
        byte[] cdb = new byte[6];
        cdb[0] = (byte) ScsiOpcode.TEST_UNIT_READY;
        for (int i = 0; i < TUR_TRIES; i++) {
            ExecResult r = host.execute(d, cdb, 6, ScsiCmnd.DIR_NONE, null, 0, host.template.timeoutMillis);
            if (r.good()) {
                return true;
            }
            if (r.senseKey() != SenseKey.UNIT_ATTENTION) {
                return false;
            }
        }
        return false;
    }

    private static void moveOf(List<ScsiCmnd> work, List<ScsiCmnd> recovered, ScsiDevice d, ScsiTarget t) {
        for (int i = work.size() - 1; i >= 0; i--) {
            ScsiCmnd c = work.get(i);
            if (c.device == d || (t != null && c.device.target == t)) {
                recovered.add(work.remove(i));
            }
        }
    }

    private static Set<ScsiDevice> devicesOf(List<ScsiCmnd> cmds) {
        Set<ScsiDevice> s = new LinkedHashSet<>();
        for (ScsiCmnd c : cmds) {
            s.add(c.device);
        }
        return s;
    }

    /** {@code scsi_eh_flush_done_q}: retry on a RUNNING device with retries left, else DID_TIME_OUT. */
    private void flushDoneQueue(List<ScsiCmnd> done) {
        for (ScsiCmnd c : done) {
            c.abortAttempted = true;
            if (c.device.state == DeviceState.RUNNING && host.retryAllowed(c)) {
                c.retries++;
                c.device.retriesAfterEh.incrementAndGet();
                host.deviceUnbusy(c);
                c.rq.requeue(false);
            } else {
                c.device.retriesExhausted.incrementAndGet();
                host.finishTimedOut(c);
            }
        }
    }

    /** {@code scsi_restart_operations}: back to RUNNING and every queue re-run. */
    private void restartOperations(int handled) {
        boolean more;
        synchronized (this) {
            hostFailed -= handled;
            more = !ehQueue.isEmpty();
            if (!more) {
                host.state = HostState.RUNNING;
                lastReset = 0;
            }
        }
        if (more) {
            checkWake();
            return;
        }
        host.runAllQueues();
    }

    private static EhResult callSafely(java.util.function.Supplier<EhResult> call) {
        try {
            EhResult r = call.get();
            return r == null ? EhResult.FAILED : r;
        } catch (RuntimeException e) {
            return EhResult.FAILED;
        }
    }

    void cancel() {
        abortWork.cancel();
        ehWork.cancel();
    }
}
