package io.hostwide.scsi.mid;

/**
 * The HBA driver SPI ({@code queuecommand} and the {@code eh_*_handler}s of {@code struct scsi_host_template}).
 *
 * <p>{@link #queueCommand} either accepts the command and returns {@link #OK} — the driver then completes it
 * exactly once, from any thread (possibly inside this call), with {@link ScsiCmnd#done} — or refuses it with
 * {@link #HOST_BUSY}, {@link #DEVICE_BUSY} or {@link #TARGET_BUSY} without completing it. Delivery failures are
 * completions with a host byte ({@link HostByte#DID_NO_CONNECT}, {@link HostByte#DID_ERROR}, …), as in the kernel.
 *
 * <p>Error handling: once an {@code eh_*} callback returns {@link EhResult#SUCCESS} for a command (abort) or for
 * a scope (LUN, target, host reset), the driver must never complete the affected commands: they belong to the
 * error handler. Callbacks run on a work thread and may block.
 */
public interface LowLevelDriver {
    int OK = 0;
    /** {@code SCSI_MLQUEUE_HOST_BUSY}: sets {@code host_blocked}. */
    int HOST_BUSY = 0x1055;
    /** {@code SCSI_MLQUEUE_DEVICE_BUSY}: sets {@code device_blocked}. */
    int DEVICE_BUSY = 0x1056;
    /** {@code SCSI_MLQUEUE_TARGET_BUSY}: sets {@code target_blocked}. */
    int TARGET_BUSY = 0x1058;

    String name();

    /** {@code queuecommand}; see {@link ScsiCmnd#isLast()} for batching. */
    int queueCommand(ScsiCmnd cmd);

    /**
     * {@code commit_rqs}: a batch on hardware queue {@code hwQueue} ended without a command marked {@link
     * ScsiCmnd#isLast() last} (the last one was refused or failed before reaching the driver), so send what this
     * driver held back. Drivers that never hold commands back need not implement it.
     */
    default void commitRqs(int hwQueue) {
    }

    /**
     * {@code mq_poll}: the calling thread reaps the completions of hardware queue {@code hwQueue} itself (see
     * {@link io.hostwide.blk.BlkMqOps#poll}), waiting up to {@code timeoutNanos} for one; returns the completions
     * processed, or -1 when the queue cannot be polled now. Drivers that complete from their own context only keep
     * the default.
     */
    default int mqPoll(int hwQueue, long timeoutNanos) {
        return -1;
    }

    /** {@code eh_abort_handler} (ABORT TASK). */
    default EhResult ehAbort(ScsiCmnd cmd) {
        return EhResult.FAILED;
    }

    /** {@code eh_device_reset_handler} (LOGICAL UNIT RESET). */
    default EhResult ehDeviceReset(ScsiDevice sdev) {
        return EhResult.FAILED;
    }

    /** {@code eh_target_reset_handler} (TARGET RESET). */
    default EhResult ehTargetReset(ScsiTarget starget) {
        return EhResult.FAILED;
    }

    /** {@code eh_host_reset_handler}. */
    default EhResult ehHostReset(ScsiHost host) {
        return EhResult.FAILED;
    }
}
