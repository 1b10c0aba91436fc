package io.hostwide.tcm.tmf;

/**
 * SAM-5 §7.1 service responses, plus the iSCSI-specific "task does not exist" (RFC 7143 §11.6.1 response 1) that
 * ABORT TASK and QUERY TASK report when the referenced task is not in the task set.
 */
public enum TmfResponse {
    /** The function completed (for QUERY functions: the condition queried does not hold). */
    FUNCTION_COMPLETE(0),
    /** QUERY TASK / QUERY TASK SET / QUERY ASYNCHRONOUS EVENT: the queried task or event exists. */
    FUNCTION_SUCCEEDED(0),
    /** ABORT TASK: no such task (already completed, or never received). */
    TASK_DOES_NOT_EXIST(1),
    /** The LUN is not mapped for this I_T nexus. */
    INCORRECT_LOGICAL_UNIT_NUMBER(2),
    /** The function is known but not supported (CLEAR ACA: NormACA = 0). */
    FUNCTION_REJECTED(255);

    private final int iscsiResponse;

    TmfResponse(int iscsiResponse) { this.iscsiResponse = iscsiResponse; }

    /** RFC 7143 §11.6.1 Response code (FUNCTION SUCCEEDED is 0 = Function complete on iSCSI). */
    public int iscsiResponse() { return iscsiResponse; }
}
