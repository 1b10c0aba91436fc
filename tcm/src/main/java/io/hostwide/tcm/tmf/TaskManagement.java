package io.hostwide.tcm.tmf;

import io.hostwide.scsi.spec.Asc;
import io.hostwide.scsi.spec.LunAddress;
import io.hostwide.scsi.spec.SenseKey;
import io.hostwide.tcm.Session;
import io.hostwide.tcm.TargetCommand;
import io.hostwide.tcm.TargetCore;
import io.hostwide.tcm.TaskAttributeGate;
import io.hostwide.tcm.dispatch.GateSlot;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.lu.ItNexus;
import io.hostwide.tcm.lu.Lun;
import io.hostwide.tcm.lu.SessionLun;
import io.hostwide.tcm.port.ScsiTarget;
import io.hostwide.tcm.port.TargetPort;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * The transport-independent task manager (SAM-5 §7; LIO's target_core_tmr): the one entry point every fabric
 * calls with a decoded task management request, {@link #request}.
 *
 * <p>Aborting: every live command that matches is marked through its abort word (a CAS that loses against
 * completion, so a command completes exactly once, either normally or aborted). Marked commands parked by the
 * task-attribute gate or still waiting on an I/O queue complete at once without running; executing ones complete
 * when their handler returns. Each ends in {@code Fabric.complete}: with TASK ABORTED status if it belonged to
 * another I_T nexus (TAS = 1 in the control mode page), else with {@code responseSuppressed()}. The request's
 * result is delivered after all of them, listing the requesting nexus's aborted tags.
 *
 * <p>Side effects (SAM-5 §6.3, SPC-4 §5.13.2): LOGICAL UNIT RESET releases the SPC-2 reservation, clears
 * medium-removal prevention and raises BUS DEVICE RESET FUNCTION OCCURRED (29h/03h) for every I_T nexus of the
 * LU; TARGET WARM RESET does that for every LU of the target with SCSI BUS RESET OCCURRED (29h/02h), TARGET COLD
 * RESET with POWER ON OCCURRED (29h/01h); I_T NEXUS RESET releases that nexus's SPC-2 reservations and raises I_T
 * NEXUS LOSS OCCURRED (29h/07h) for it. Persistent reservations survive all of them (SPC-4 §5.13.1) but TARGET
 * COLD RESET, a power on, which keeps them only with APTPL ({@code PersistentReservations.powerOn}).
 */
public final class TaskManagement {
    /** REPORT SUPPORTED TASK MANAGEMENT FUNCTIONS bytes 0..1 (SPC-4 §6.36): ATS ATSS CTSS LURS QTS TRS; QUAS QTSS ITNRS. */
    public static final int SUPPORTED = 0xDE07;

    private final TargetCore core;
    private final CopyOnWriteArrayList<AbortOperation> active = new CopyOnWriteArrayList<>();
    private final AtomicLong abortsComplete = new AtomicLong();
    private final AtomicLong abortsNoTask = new AtomicLong();
    private final AtomicLong resets = new AtomicLong();

    public TaskManagement(TargetCore core) { this.core = core; }

    /**
     * Performs one task management function for I_T nexus {@code s}. Never throws for anything the request
     * carries; the callback runs exactly once (see {@link TmfCallback} for the thread).
     *
     * @param lun           the 8-byte SAM LUN (ignored by I_T NEXUS RESET and the target resets)
     * @param referencedTag the tag of the task ABORT TASK / QUERY TASK refer to
     */
    public void request(Session s, TmfFunction f, long lun, long referencedTag, TmfCallback cb) {
        if (f == null) { // a code the fabric could not map (TmfFunction.fromIscsiFunction returned null)
            cb.done(new TmfResult(null, TmfResponse.FUNCTION_REJECTED, new long[0], 0));
            return;
        }
        SessionLun sl = null;
        if (f.lunScoped()) {
            int n = LunAddress.decode(lun);
            sl = n >= 0 ? s.lookup(n) : null;
            if (sl == null) {
                cb.done(TmfResult.of(f, TmfResponse.INCORRECT_LOGICAL_UNIT_NUMBER));
                return;
            }
        }
        Device dev = sl == null ? null : sl.device();
        switch (f) {
            case CLEAR_ACA -> cb.done(TmfResult.of(f, TmfResponse.FUNCTION_REJECTED)); // NormACA = 0: no ACA
            case QUERY_TASK -> cb.done(TmfResult.of(f, anyLive(c -> c.session() == s && c.tag() == referencedTag
                    && c.lun() == lun) ? TmfResponse.FUNCTION_SUCCEEDED : TmfResponse.FUNCTION_COMPLETE));
            case QUERY_TASK_SET -> cb.done(TmfResult.of(f, anyLive(c -> c.session() == s && c.lun() == lun)
                    ? TmfResponse.FUNCTION_SUCCEEDED : TmfResponse.FUNCTION_COMPLETE));
            case QUERY_ASYNCHRONOUS_EVENT -> cb.done(queryAsynchronousEvent(sl));
            case ABORT_TASK -> abort(s, f, c -> c.session() == s && c.tag() == referencedTag && c.lun() == lun,
                    null, () -> {}, cb);
            case ABORT_TASK_SET -> abort(s, f, c -> c.session() == s && c.lun() == lun, null, () -> {}, cb);
            case CLEAR_TASK_SET -> abort(s, f, c -> c.device() == dev, null, () -> {}, cb);
            case LOGICAL_UNIT_RESET -> abort(s, f, c -> c.device() == dev, null,
                    () -> resetLogicalUnit(dev, Asc.BUS_DEVICE_RESET_FUNCTION_OCCURRED), cb);
            case I_T_NEXUS_RESET -> abort(s, f, c -> c.session() == s, null, () -> nexusReset(s), cb);
            case TARGET_WARM_RESET, TARGET_COLD_RESET -> {
                ScsiTarget t = s.port().target();
                int asc = f == TmfFunction.TARGET_COLD_RESET ? Asc.POWER_ON_OCCURRED : 0x2902; // SCSI BUS RESET OCCURRED
                abort(s, f, c -> c.session().port().target() == t, null, () -> {
                    Set<Device> lus = resetTarget(t, asc);
                    if (f == TmfFunction.TARGET_COLD_RESET) {
                        for (Device d : lus) {
                            d.reservations().powerOn();
                        }
                        core.powerOnOccurred(t);
                    }
                }, cb);
            }
        }
    }

    /**
     * I_T nexus loss (SAM-5 §6.3.4), for a fabric whose connection or session went away: aborts every command of
     * the nexus (their responses are suppressed; the fabric just releases them) and releases the SPC-2
     * reservations it held; {@code done} runs once they all completed. Persistent reservations stay (SPC-4
     * §5.13.1). Call before {@link Session#close()}.
     */
    public void nexusLoss(Session s, Runnable done) {
        abortCommands(s, c -> c.session() == s, null, new ArrayList<>(), done, () -> {
            for (SessionLun l : s.sessionLuns()) {
                l.device().reservations().releaseSpc2(s);
            }
        });
    }

    /**
     * Aborts the commands of the given I_T nexuses on one LU, except {@code exclude} (PREEMPT AND ABORT, SPC-4
     * §5.13.11.4.5: the preempted nexuses' tasks), then runs {@code done} once they all completed.
     */
    public void abortFor(Set<? extends ItNexus> nexuses, Device dev, TargetCommand exclude, ItNexus requester,
                         Runnable done) {
        abortCommands(requester, c -> c.device() == dev && nexuses.contains(c.session()), exclude, new ArrayList<>(),
                done);
    }

    private void abort(Session s, TmfFunction f, Predicate<TargetCommand> match, TargetCommand exclude,
                       Runnable effects, TmfCallback cb) {
        List<Long> tags = new ArrayList<>();
        int n = abortCommands(s, match, exclude, tags, () -> cb.done(result(f, tags)), effects);
        if (f == TmfFunction.ABORT_TASK) {
            (n > 0 ? abortsComplete : abortsNoTask).incrementAndGet();
        }
    }

    private int abortCommands(ItNexus requester, Predicate<TargetCommand> match, TargetCommand exclude,
                              List<Long> tags, Runnable done) {
        return abortCommands(requester, match, exclude, tags, done, () -> {});
    }

    private int abortCommands(ItNexus requester, Predicate<TargetCommand> match, TargetCommand exclude,
                              List<Long> tags, Runnable done, Runnable effects) {
        int found = 0;
        AbortOperation op = new AbortOperation(done, active);
        active.add(op);
        Set<Device> touched = new LinkedHashSet<>();
        for (Session x : core.sessions()) {
            for (TargetCommand c : x.commandObjects()) {
                long w = c.abortWord();  // volatile read first: the fields below belong to this submission or later
                if (!TargetCommand.live(w) || c == exclude || !match.test(c)) {
                    continue;
                }
                long tag = c.tag();
                Device d = c.device();
                if (c.requestAbort(w, c.session() != requester)) {
                    op.add(c, w);
                    found++;
                    if (c.session() == requester) {
                        tags.add(tag);
                    }
                    if (d != null) {
                        touched.add(d);
                    }
                }
            }
        }
        if (core.gate(GateSlot.TASK_ATTRIBUTE) instanceof TaskAttributeGate g) {
            for (Device d : touched) {
                g.abortParked(d);
            }
        }
        effects.run();
        op.arm();
        op.check();
        return found;
    }

    private static TmfResult result(TmfFunction f, List<Long> tags) {
        long[] t = new long[tags.size()];
        for (int i = 0; i < t.length; i++) {
            t[i] = tags.get(i);
        }
        TmfResponse r = f == TmfFunction.ABORT_TASK && t.length == 0
                ? TmfResponse.TASK_DOES_NOT_EXIST : TmfResponse.FUNCTION_COMPLETE;
        return new TmfResult(f, r, t, 0);
    }

    /** Called by the core after the fabric saw an aborted command: finishes requests waiting for it. */
    public void abortedCommandDelivered() {
        for (AbortOperation op : active) {
            op.check();
        }
    }

    private boolean anyLive(Predicate<TargetCommand> match) {
        for (Session x : core.sessions()) {
            for (TargetCommand c : x.commandObjects()) {
                if (TargetCommand.live(c.abortWord()) && match.test(c)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** SAM-5 §7.12: the head unit attention (not cleared) with UADE DEPTH 01b (one) or 10b (more). */
    private static TmfResult queryAsynchronousEvent(SessionLun sl) {
        int head = sl.unitAttentions().peek();
        if (head < 0) {
            return TmfResult.of(TmfFunction.QUERY_ASYNCHRONOUS_EVENT, TmfResponse.FUNCTION_COMPLETE);
        }
        int depth = sl.unitAttentions().size() > 1 ? 2 : 1;
        int info = (depth << 4 | SenseKey.UNIT_ATTENTION) << 16 | head;
        return new TmfResult(TmfFunction.QUERY_ASYNCHRONOUS_EVENT, TmfResponse.FUNCTION_SUCCEEDED, new long[0], info);
    }

    private void resetLogicalUnit(Device dev, int ascAscq) {
        resets.incrementAndGet();
        dev.reservations().releaseSpc2(); // SPC-4 §5.13.2 / SPC-2 §5.5.1: a reset releases it
        dev.clearMediumRemovalPrevention();
        dev.broadcastUnitAttention(ascAscq, null);
    }

    /** @return the target's logical units, each reset */
    private Set<Device> resetTarget(ScsiTarget t, int ascAscq) {
        Set<Device> devices = new LinkedHashSet<>();
        for (TargetPort p : t.ports()) {
            for (Lun l : p.luns()) {
                devices.add(l.device());
            }
        }
        for (Device d : devices) {
            resetLogicalUnit(d, ascAscq);
        }
        return devices;
    }

    /** SAM-5 §6.3.4: the nexus's SPC-2 reservations go, and it sees I_T NEXUS LOSS OCCURRED on every LU. */
    private static void nexusReset(Session s) {
        for (SessionLun l : s.sessionLuns()) {
            l.device().reservations().releaseSpc2(s);
            l.preventMediumRemoval(false);
            l.unitAttentions().add(Asc.I_T_NEXUS_LOSS_OCCURRED);
        }
    }

    /** ABORT TASK requests that found their task (LIO aborts_complete). */
    public long abortsComplete() { return abortsComplete.get(); }

    /** ABORT TASK requests that did not (LIO aborts_no_task). */
    public long abortsNoTask() { return abortsNoTask.get(); }

    /** Logical unit resets performed (each LU of a target reset counts). */
    public long resets() { return resets.get(); }

    /** Requests still waiting for aborted commands. */
    public int pending() { return active.size(); }
}
