package io.hostwide.tcm.spi;

import io.hostwide.scsi.spec.Asc;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.scsi.spec.SenseKey;

/**
 * The one error vocabulary of the core: every way a command can fail, mapped once to status, sense key and
 * ASC/ASCQ (as LIO's sense table). Handlers and gates return a reason; only {@link TargetCommand} turns it into
 * sense bytes (fixed or descriptor format per the control mode page D_SENSE bit).
 */
public enum SenseReason {
    INVALID_COMMAND_OPERATION_CODE(SenseKey.ILLEGAL_REQUEST, Asc.INVALID_COMMAND_OPERATION_CODE),
    /** Carries a field pointer with C/D = 1 when the failing call names the byte (SPC-4 §4.5.2.4.2). */
    INVALID_FIELD_IN_CDB(SenseKey.ILLEGAL_REQUEST, Asc.INVALID_FIELD_IN_CDB),
    /** Carries a field pointer with C/D = 0. */
    INVALID_FIELD_IN_PARAMETER_LIST(SenseKey.ILLEGAL_REQUEST, Asc.INVALID_FIELD_IN_PARAMETER_LIST),
    PARAMETER_LIST_LENGTH_ERROR(SenseKey.ILLEGAL_REQUEST, Asc.PARAMETER_LIST_LENGTH_ERROR),
    PARAMETER_VALUE_INVALID(SenseKey.ILLEGAL_REQUEST, Asc.PARAMETER_VALUE_INVALID),
    LBA_OUT_OF_RANGE(SenseKey.ILLEGAL_REQUEST, Asc.LOGICAL_BLOCK_ADDRESS_OUT_OF_RANGE),
    LOGICAL_UNIT_NOT_SUPPORTED(SenseKey.ILLEGAL_REQUEST, Asc.LOGICAL_UNIT_NOT_SUPPORTED),
    /** The transport's expected length cannot carry what the CDB asks to send (SAM-5 §5.4 overflow on Data-Out). */
    INVALID_FIELD_IN_INFORMATION_UNIT(SenseKey.ILLEGAL_REQUEST, Asc.INVALID_FIELD_IN_INFORMATION_UNIT),
    SAVING_PARAMETERS_NOT_SUPPORTED(SenseKey.ILLEGAL_REQUEST, Asc.SAVING_PARAMETERS_NOT_SUPPORTED),
    MEDIUM_REMOVAL_PREVENTED(SenseKey.ILLEGAL_REQUEST, Asc.MEDIUM_REMOVAL_PREVENTED),
    /** ACA task attribute: the core does not support ACA (SAM-5 §5.9.1, NormACA = 0). */
    ACA_NOT_SUPPORTED(SenseKey.ILLEGAL_REQUEST, Asc.INVALID_FIELD_IN_CDB),
    WRITE_PROTECTED(SenseKey.DATA_PROTECT, Asc.WRITE_PROTECTED),
    /**
     * A thin LU ran out of the resources its writes allocate from (SBC-4 §4.7.3.6): the write is refused, reads and
     * UNMAP keep working, and a later write succeeds once space was freed.
     */
    SPACE_ALLOCATION_FAILED_WRITE_PROTECT(SenseKey.DATA_PROTECT, Asc.SPACE_ALLOCATION_FAILED_WRITE_PROTECT),
    MEDIUM_NOT_PRESENT(SenseKey.NOT_READY, Asc.MEDIUM_NOT_PRESENT),
    NOT_READY_INITIALIZING_COMMAND_REQUIRED(SenseKey.NOT_READY, Asc.LOGICAL_UNIT_NOT_READY_INITIALIZING_COMMAND_REQUIRED),
    NOT_READY_SANITIZE_IN_PROGRESS(SenseKey.NOT_READY, Asc.LOGICAL_UNIT_NOT_READY_SANITIZE_IN_PROGRESS),
    NOT_READY_CAUSE_NOT_REPORTABLE(SenseKey.NOT_READY, Asc.LOGICAL_UNIT_NOT_READY_CAUSE_NOT_REPORTABLE),
    /** Carries the offset of the first miscompare in the INFORMATION field (SBC-4 §5.3, §5.42). */
    MISCOMPARE_DURING_VERIFY(SenseKey.MISCOMPARE, Asc.MISCOMPARE_DURING_VERIFY_OPERATION),
    UNRECOVERED_READ_ERROR(SenseKey.MEDIUM_ERROR, Asc.UNRECOVERED_READ_ERROR),
    WRITE_ERROR(SenseKey.MEDIUM_ERROR, Asc.WRITE_ERROR),
    /** A sanitize operation could not complete (SBC-4 §4.11.4). */
    SANITIZE_COMMAND_FAILED(SenseKey.MEDIUM_ERROR, Asc.SANITIZE_COMMAND_FAILED),
    MEDIUM_FORMAT_CORRUPTED(SenseKey.MEDIUM_ERROR, Asc.MEDIUM_FORMAT_CORRUPTED),
    INTERNAL_TARGET_FAILURE(SenseKey.HARDWARE_ERROR, Asc.INTERNAL_TARGET_FAILURE),
    INSUFFICIENT_RESOURCES(SenseKey.ILLEGAL_REQUEST, Asc.INSUFFICIENT_RESOURCES),
    /** The ASC/ASCQ comes from the unit attention queue (see {@link TargetCommand#failUnitAttention(int)}). */
    UNIT_ATTENTION(SenseKey.UNIT_ATTENTION, Asc.NO_ADDITIONAL_SENSE_INFORMATION),
    // --- persistent reservations (SPC-4 §5.13), ALUA (SPC-4 §5.15), EXTENDED COPY (SPC-4 §6.4) ---------------
    INVALID_RELEASE_OF_PERSISTENT_RESERVATION(SenseKey.ILLEGAL_REQUEST, 0x2604),
    INSUFFICIENT_REGISTRATION_RESOURCES(SenseKey.ILLEGAL_REQUEST, Asc.INSUFFICIENT_REGISTRATION_RESOURCES),
    ALUA_TRANSITIONING(SenseKey.NOT_READY, Asc.LOGICAL_UNIT_NOT_READY_ASYMMETRIC_ACCESS_STATE_TRANSITION),
    ALUA_STANDBY(SenseKey.NOT_READY, Asc.LOGICAL_UNIT_NOT_READY_TARGET_PORT_IN_STANDBY_STATE),
    ALUA_UNAVAILABLE(SenseKey.NOT_READY, Asc.LOGICAL_UNIT_NOT_READY_TARGET_PORT_IN_UNAVAILABLE_STATE),
    ALUA_OFFLINE(SenseKey.NOT_READY, Asc.LOGICAL_UNIT_NOT_READY_OFFLINE),
    /** SPC-4 §6.40: the transition SET TARGET PORT GROUPS asked for failed (e.g. another gateway kept the lock). */
    STPG_FAILED(SenseKey.HARDWARE_ERROR, Asc.SET_TARGET_PORT_GROUPS_COMMAND_FAILED),
    TOO_MANY_TARGET_DESCRIPTORS(SenseKey.ILLEGAL_REQUEST, Asc.TOO_MANY_TARGET_DESCRIPTORS),
    UNSUPPORTED_TARGET_DESCRIPTOR_TYPE_CODE(SenseKey.ILLEGAL_REQUEST, Asc.UNSUPPORTED_TARGET_DESCRIPTOR_TYPE_CODE),
    TOO_MANY_SEGMENT_DESCRIPTORS(SenseKey.ILLEGAL_REQUEST, Asc.TOO_MANY_SEGMENT_DESCRIPTORS),
    UNSUPPORTED_SEGMENT_DESCRIPTOR_TYPE_CODE(SenseKey.ILLEGAL_REQUEST, Asc.UNSUPPORTED_SEGMENT_DESCRIPTOR_TYPE_CODE),
    /** SPC-4 §6.4.3: a copy failed while processing a segment (e.g. an LBA beyond a copy target's capacity). */
    COPY_ABORTED(SenseKey.COPY_ABORTED, Asc.NO_ADDITIONAL_SENSE_INFORMATION),
    COPY_ABORTED_UNREACHABLE_COPY_TARGET(SenseKey.COPY_ABORTED, Asc.UNREACHABLE_COPY_TARGET),
    COPY_ABORTED_COPY_TARGET_DEVICE_NOT_REACHABLE(SenseKey.COPY_ABORTED, Asc.COPY_TARGET_DEVICE_NOT_REACHABLE),
    /** SPC-4 §6.4.1: an EXTENDED COPY with the same list identifier is still running on this I_T nexus. */
    OPERATION_IN_PROGRESS(SenseKey.ILLEGAL_REQUEST, 0x0016),
    RESERVATION_CONFLICT(ScsiStatus.RESERVATION_CONFLICT),
    TASK_SET_FULL(ScsiStatus.TASK_SET_FULL),
    BUSY(ScsiStatus.BUSY),
    TASK_ABORTED(ScsiStatus.TASK_ABORTED);

    private final int status;
    private final int senseKey;
    private final int ascAscq;

    SenseReason(int senseKey, int ascAscq) {
        this.status = ScsiStatus.CHECK_CONDITION;
        this.senseKey = senseKey;
        this.ascAscq = ascAscq;
    }

    /** A reason reported by status alone, without sense data. */
    SenseReason(int status) {
        this.status = status;
        this.senseKey = -1;
        this.ascAscq = 0;
    }

    public int status() { return status; }

    /** @return the sense key, or -1 for a status-only reason */
    public int senseKey() { return senseKey; }

    public int ascAscq() { return ascAscq; }

    public boolean hasSense() { return senseKey >= 0; }

    /**
     * The answer to a write whose backstore call failed: SPACE ALLOCATION FAILED WRITE PROTECT when the backstore
     * ran out of space ({@link SpaceAllocationFailedException}), the backstore's own answer
     * ({@link BackstoreStatusException}: BUSY, NOT READY), else WRITE ERROR (SBC-4 §4.18).
     */
    public static SenseReason ofWriteFailure(java.io.IOException e) {
        if (e instanceof BackstoreStatusException s) {
            return s.reason();
        }
        return e instanceof SpaceAllocationFailedException ? SPACE_ALLOCATION_FAILED_WRITE_PROTECT : WRITE_ERROR;
    }

    /** The answer to a read whose backstore call failed: the backstore's own answer, else UNRECOVERED READ ERROR. */
    public static SenseReason ofReadFailure(java.io.IOException e) {
        return e instanceof BackstoreStatusException s ? s.reason() : UNRECOVERED_READ_ERROR;
    }
}
