package io.hostwide.scsi.mid;

/**
 * The {@code stat} view of a LUN, named as /sys/bus/scsi/devices/H:C:T:L/ (digest §4.9), plus re-issues counted
 * per disposition (NEEDS_RETRY, ADD_TO_MLQUEUE, after error handling), commands handed to error handling, commands
 * whose retries ran out, and whether the LUN is settling after a host reset.
 */
public record ScsiDeviceSnapshot(String name, String state, String vendor, String model, String rev,
                                 int queueDepth, int maxQueueDepth, int deviceBusy, int deviceBlocked,
                                 boolean rotational, boolean budgetBypassed, int restarts, long restartRuns,
                                 long queueFullEvents, long queueDepthChanges, long queueRampUpPeriodMillis,
                                 long iorequestCnt, long iodoneCnt, long ioerrCnt, long iotmoCnt,
                                 long retriesNeedsRetry, long retriesAddToMlqueue, long retriesAfterEh,
                                 long failedToEh, long retriesExhausted, boolean settling) {

    static ScsiDeviceSnapshot of(ScsiDevice d) {
        DeviceInfo i = d.info;
        return new ScsiDeviceSnapshot(d.name, d.state.name().toLowerCase(java.util.Locale.ROOT),
                i == null ? "" : i.vendor(), i == null ? "" : i.product(), i == null ? "" : i.revision(),
                d.queueDepth(), d.rampUpLimit(), d.q == null ? 0 : d.busy(), d.deviceBlocked(), d.rotational,
                d.bypassBudget, d.restarts(), d.restartRuns(), d.queueFullEvents(), d.queueDepthChanges(),
                d.host.template.queueRampUpPeriodMillis, d.iorequestCnt(), d.iodoneCnt(), d.ioerrCnt(), d.iotmoCnt(),
                d.retriesNeedsRetry(), d.retriesAddToMlqueue(), d.retriesAfterEh(), d.failedToEh(),
                d.retriesExhausted(), d.isSettling());
    }
}
