package io.hostwide.scsi.mid;

import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.scsi.spec.SenseKey;

/**
 * {@code scsi_decide_disposition} and {@code scsi_check_sense} (digest §4.5): what to do with a completed command.
 */
public enum Disposition {
    /** Finished (good or with an error the upper driver reports). */
    SUCCESS,
    /** Retry now if retries remain ({@code scsi_queue_insert(EH_RETRY)}). */
    NEEDS_RETRY,
    /** Requeue with {@code device_blocked} set: a time back-off, not a retry count ({@code DEVICE_BUSY}). */
    ADD_TO_MLQUEUE,
    /** Hand to error handling. */
    FAILED;

    /** Decides for a command the driver completed (never for one that timed out). */
    static Disposition decide(ScsiCmnd cmd) {
        switch (cmd.hostByte()) {
            case HostByte.DID_OK:
                break;
            case HostByte.DID_NO_CONNECT, HostByte.DID_BAD_TARGET, HostByte.DID_ABORT,
                 HostByte.DID_TARGET_FAILURE, HostByte.DID_TRANSPORT_FAILFAST:
                return SUCCESS;
            case HostByte.DID_REQUEUE:
                return ADD_TO_MLQUEUE;
            case HostByte.DID_IMM_RETRY, HostByte.DID_SOFT_ERROR, HostByte.DID_ERROR, HostByte.DID_BUS_BUSY,
                 HostByte.DID_RESET, HostByte.DID_TRANSPORT_DISRUPTED:
                return NEEDS_RETRY;
            case HostByte.DID_TIME_OUT:
                return cmd.abortAttempted ? SUCCESS : FAILED;
            default:
                return FAILED;
        }
        return switch (cmd.status()) {
            case ScsiStatus.GOOD, ScsiStatus.CONDITION_MET -> SUCCESS;
            case ScsiStatus.CHECK_CONDITION -> checkSense(cmd);
            case ScsiStatus.TASK_SET_FULL, ScsiStatus.BUSY -> ADD_TO_MLQUEUE;
            case ScsiStatus.RESERVATION_CONFLICT -> SUCCESS;
            case ScsiStatus.TASK_ABORTED -> NEEDS_RETRY;
            default -> FAILED;
        };
    }

    /** {@code scsi_check_sense}. */
    static Disposition checkSense(ScsiCmnd cmd) {
        int key = cmd.senseKey();
        if (key < 0) {
            return NEEDS_RETRY;   // CHECK CONDITION without sense: the kernel fetches it in EH; we ask again
        }
        int asc = cmd.ascAscq() >>> 8;
        int ascq = cmd.ascAscq() & 0xFF;
        return switch (key) {
            case SenseKey.NO_SENSE, SenseKey.RECOVERED_ERROR -> SUCCESS;
            case SenseKey.ABORTED_COMMAND -> asc == 0x10 ? SUCCESS : NEEDS_RETRY;   // 10h: protection information
            case SenseKey.UNIT_ATTENTION -> {
                // A medium change on a removable device fails; everything else (power on, reset, mode or
                // capacity changed, REPORTED LUNS DATA HAS CHANGED) is retried.
                DeviceInfo info = cmd.device == null ? null : cmd.device.info;
                yield asc == 0x28 && info != null && info.removable() ? SUCCESS : NEEDS_RETRY;
            }
            case SenseKey.NOT_READY -> {
                // 04h/01h becoming ready, 04h/0Ah ALUA transitioning, 04h/0Bh standby...: wait and retry.
                if (asc == 0x04 && (ascq == 0x01 || ascq == 0x0A || ascq == 0x05 || ascq == 0x06 || ascq == 0x07
                        || ascq == 0x08 || ascq == 0x09 || ascq == 0x14 || ascq == 0x1A || ascq == 0x1B
                        || ascq == 0x1D || ascq == 0x24)) {
                    yield ADD_TO_MLQUEUE;
                }
                yield SUCCESS;   // not present, manual intervention, format in progress: fail to the caller
            }
            case SenseKey.MEDIUM_ERROR, SenseKey.HARDWARE_ERROR, SenseKey.ILLEGAL_REQUEST,
                 SenseKey.DATA_PROTECT, SenseKey.BLANK_CHECK, SenseKey.VOLUME_OVERFLOW,
                 SenseKey.MISCOMPARE, SenseKey.COPY_ABORTED -> SUCCESS;
            default -> SUCCESS;
        };
    }
}
