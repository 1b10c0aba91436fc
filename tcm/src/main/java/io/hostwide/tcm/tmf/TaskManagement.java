package io.hostwide.tcm.tmf;

import io.hostwide.scsi.spec.Asc;
import io.hostwide.scsi.spec.LunAddress;
import io.hostwide.scsi.spec.SenseKey;
import io.hostwide.tcm.core.CoreCommand;
import io.hostwide.tcm.core.Registry;
import io.hostwide.tcm.core.Session;
import io.hostwide.tcm.core.TaskAborter;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.lu.Lun;
import io.hostwide.tcm.lu.SessionLun;
import io.hostwide.tcm.port.ScsiTarget;
import io.hostwide.tcm.port.TargetPort;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * The transport-independent task manager (SAM-5 §7; LIO's target_core_tmr): the one entry point every fabric
 * calls with a decoded task management request, {@link #request}.
 *
 * <p>Aborting goes through the core's {@link TaskAborter}: every live command that matches completes exactly once,
 * normally or aborted, and reaches {@code Fabric.complete}: with TASK ABORTED status if it belonged to another I_T
 * nexus (TAS = 1 in the control mode page), else with {@code responseSuppressed()}. The request's result is
 * delivered after all of them, listing the requesting nexus's aborted tags.
 *
 * <p>Side effects (SAM-5 §6.3, SPC-4 §5.13.2): LOGICAL UNIT RESET releases the SPC-2 reservation, clears
 * medium-removal prevention and raises BUS DEVICE RESET FUNCTION OCCURRED (29h/03h) for every I_T nexus of the
 * LU; TARGET WARM RESET does that for every LU of the target with SCSI BUS RESET OCCURRED (29h/02h), TARGET COLD
 * RESET with POWER ON OCCURRED (29h/01h); I_T NEXUS RESET releases that nexus's SPC-2 reservations and raises I_T
 * NEXUS LOSS OCCURRED (29h/07h) for it. Persistent reservations survive all of them (SPC-4 §5.13.1) but TARGET
 * COLD RESET, a power on, which keeps them only with APTPL ({@code PersistentReservations.powerOn}).
 *
 * <p>An LU several gateways export (shared reservations, issue 16) is one LU behind all their target ports: a
 * reset taken on one gateway releases the SPC-2 reservation in the shared state, and then every other gateway
 * aborts its commands on the LU and raises the same unit attention on its own I_T nexuses before the function's
 * response goes out ({@code PersistentReservations.resetOtherGateways}).
 */
public final class TaskManagement {
    /** REPORT SUPPORTED TASK MANAGEMENT FUNCTIONS bytes 0..1 (SPC-4 §6.36): ATS ATSS CTSS LURS QTS TRS; QUAS QTSS ITNRS. */
    public static final int SUPPORTED = 0xDE07;

    private final Registry registry;
    private final TaskAborter aborter;
    private final AtomicLong abortsComplete = new AtomicLong();
    private final AtomicLong abortsNoTask = new AtomicLong();
    private final AtomicLong resets = new AtomicLong();

    /** The task manager of {@code registry}'s sessions, aborting through {@code aborter}. */
    public TaskManagement(Registry registry, TaskAborter aborter) {
        this.registry = registry;
        this.aborter = aborter;
    }

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
            case QUERY_TASK -> cb.done(query(f, c -> c.session() == s && c.tag() == referencedTag && c.lun() == lun));
            case QUERY_TASK_SET -> cb.done(query(f, c -> c.session() == s && c.lun() == lun));
            case QUERY_ASYNCHRONOUS_EVENT -> cb.done(queryAsynchronousEvent(sl));
            case ABORT_TASK -> abort(s, f, c -> c.session() == s && c.tag() == referencedTag && c.lun() == lun,
                    null, () -> {}, cb);
            case ABORT_TASK_SET -> abort(s, f, c -> c.session() == s && c.lun() == lun, null, () -> {}, cb);
            case CLEAR_TASK_SET -> abort(s, f, c -> c.device() == dev, null, () -> {}, cb);
            case LOGICAL_UNIT_RESET -> abort(s, f, c -> c.device() == dev, null, () -> {
                resetLogicalUnit(dev, Asc.BUS_DEVICE_RESET_FUNCTION_OCCURRED);
                dev.reservations().resetOtherGateways(Asc.BUS_DEVICE_RESET_FUNCTION_OCCURRED);
            }, cb);
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
                        registry.powerOnOccurred(t);
                    }
                    for (Device d : lus) { // the target's ports on other gateways: same LUs, same reset
                        d.reservations().resetOtherGateways(asc);
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
        aborter.abort(s, c -> c.session() == s, null, null, done, () -> {
            for (SessionLun l : s.sessionLuns()) {
                l.device().reservations().releaseSpc2(s);
            }
        });
    }

    private void abort(Session s, TmfFunction f, Predicate<CoreCommand> match, CoreCommand exclude,
                       Runnable effects, TmfCallback cb) {
        List<Long> tags = new ArrayList<>();
        int n = aborter.abort(s, match, exclude, tags, () -> cb.done(result(f, tags)), effects);
        if (f == TmfFunction.ABORT_TASK) {
            (n > 0 ? abortsComplete : abortsNoTask).incrementAndGet();
        }
    }

    /** QUERY TASK / QUERY TASK SET (SAM-5 §7.9, §7.10): FUNCTION SUCCEEDED when a matching task is live. */
    private TmfResult query(TmfFunction f, Predicate<CoreCommand> match) {
        return TmfResult.of(f, aborter.anyLive(match) ? TmfResponse.FUNCTION_SUCCEEDED : TmfResponse.FUNCTION_COMPLETE);
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
    public int pending() { return aborter.pending(); }
}
