package io.hostwide.tcm.dispatch;

/**
 * The order of the per-command gates after LUN lookup / ACL and CDB decoding. Unit attention comes first
 * (SAM-5 §5.14: a pending UA preempts any other check for a non-exempt command); reservation conflicts are
 * reported before ALUA state errors; task-attribute ordering is last so that parked commands have already passed
 * every check that could reject them.
 */
public enum GateSlot {
    UNIT_ATTENTION,
    RESERVATION,
    ALUA,
    TASK_ATTRIBUTE
}
