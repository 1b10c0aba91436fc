package io.hostwide.iscsi.spec;

/** Task management function codes (RFC 7143 §11.5.1) and response codes (§11.6.1). */
public final class TaskManagement {
    private TaskManagement() {}

    public static final int ABORT_TASK = 1;
    public static final int ABORT_TASK_SET = 2;
    public static final int CLEAR_ACA = 3;
    public static final int CLEAR_TASK_SET = 4;
    public static final int LOGICAL_UNIT_RESET = 5;
    public static final int TARGET_WARM_RESET = 6;
    public static final int TARGET_COLD_RESET = 7;
    public static final int TASK_REASSIGN = 8;

    public static final int FUNCTION_COMPLETE = 0;
    public static final int TASK_DOES_NOT_EXIST = 1;
    public static final int LUN_DOES_NOT_EXIST = 2;
    public static final int TASK_STILL_ALLEGIANT = 3;
    public static final int TASK_ALLEGIANCE_REASSIGNMENT_NOT_SUPPORTED = 4;
    public static final int FUNCTION_NOT_SUPPORTED = 5;
    public static final int FUNCTION_AUTHORIZATION_FAILED = 6;
    public static final int FUNCTION_REJECTED = 255;
}
