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

    private static boolean notReadyWaits(int ascq) {
        return switch (ascq) {
            case 0x01, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x11, 0x14, 0x1A, 0x1B, 0x1D, 0x24, 0x25 -> true;
            default -> false;
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
                // A temporary state waits and retries (within the command's runtime cap), as the kernel's
                // ACTION_DELAYED_RETRY list: 04h/01h becoming ready, 04h/04h format, 04h/05h-09h rebuild,
                // recalculation, operation, long write, self-test, 04h/11h notify required, 04h/14h space
                // allocation, 04h/1Ah START STOP UNIT, 04h/1Bh sanitize, 04h/1Dh configuration, 04h/24h-25h
                // depopulation; and 04h/0Ah ALUA transitioning (the alua handler's ADD_TO_MLQUEUE).
                if (asc == 0x04 && notReadyWaits(ascq)) {
                    yield ADD_TO_MLQUEUE;
                }
                // Anything else (medium not present 3Ah, initializing command required 04h/02h, manual
                // intervention 04h/03h, ALUA standby/unavailable 04h/0Bh-0Ch...) fails to the caller at once.
                yield SUCCESS;
            }
            case SenseKey.MEDIUM_ERROR, SenseKey.HARDWARE_ERROR, SenseKey.ILLEGAL_REQUEST,
                 SenseKey.DATA_PROTECT, SenseKey.BLANK_CHECK, SenseKey.VOLUME_OVERFLOW,
                 SenseKey.MISCOMPARE, SenseKey.COPY_ABORTED -> SUCCESS;
            default -> SUCCESS;
        };
    }
}
