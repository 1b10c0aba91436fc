package io.hostwide.scsi.mid;

import java.util.List;

/**
 * The {@code stat} view of a host, named as /sys/class/scsi_host/hostN/ (digest §4.9), plus the error-handler
 * counters and the restart policy.
 */
public record ScsiHostSnapshot(int hostNo, String procName, String state, int canQueue, int cmdPerLun,
                               int nrHwQueues, boolean hostTagset, int sgTablesize, int maxSectors, int hostBusy,
                               int hostBlocked, int hostFailed, String restartPolicy, long ehAborts,
                               long ehLunResets, long ehTargetResets, long ehHostResets, long hostBusyRefusals,
                               long ehDeadlineMillis, long ehDeadlineEscalations, long resetSettleMillis,
                               List<ScsiDeviceSnapshot> devices) {

    static ScsiHostSnapshot of(ScsiHost h) {
        ScsiHostTemplate t = h.template;
        ErrorHandler eh = h.eh;
        List<ScsiDeviceSnapshot> devs = h.devices().stream().map(ScsiDeviceSnapshot::of).toList();
        return new ScsiHostSnapshot(h.hostNo, h.lld.name(), h.state.name().toLowerCase(java.util.Locale.ROOT),
                h.canQueue(), t.initialDepth(), h.nrHwQueues(), h.hostTagset(), t.sgTablesize, t.maxSectors,
                h.hostBusy(), h.hostBlocked(), eh.hostFailed(), t.restartPolicy.name().toLowerCase(java.util.Locale.ROOT),
                eh.aborts(), eh.lunResets(), eh.targetResets(), eh.hostResets(), h.hostBusyRefusals.get(),
                t.ehDeadlineMillis, eh.deadlineEscalations(), t.effectiveSettleMillis(), devs);
    }
}
