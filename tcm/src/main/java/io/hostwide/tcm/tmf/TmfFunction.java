package io.hostwide.tcm.tmf;

/**
 * SAM-5 §7 task management functions. Transports encode them their own way (RFC 7143 §11.5.1 Function: 1 ABORT
 * TASK, 2 ABORT TASK SET, 3 CLEAR ACA, 4 CLEAR TASK SET, 5 LOGICAL UNIT RESET, 6 TARGET WARM RESET, 7 TARGET COLD
 * RESET, 8 TASK REASSIGN, 9..11 QUERY TASK / QUERY TASK SET / I_T NEXUS RESET, 12 QUERY ASYNCHRONOUS EVENT);
 * {@link #fromIscsiFunction(int)} maps that one.
 */
public enum TmfFunction {
    ABORT_TASK(true),
    ABORT_TASK_SET(true),
    CLEAR_ACA(true),
    CLEAR_TASK_SET(true),
    LOGICAL_UNIT_RESET(true),
    I_T_NEXUS_RESET(false),
    TARGET_WARM_RESET(false),
    TARGET_COLD_RESET(false),
    QUERY_TASK(true),
    QUERY_TASK_SET(true),
    QUERY_ASYNCHRONOUS_EVENT(true);

    private final boolean lunScoped;

    TmfFunction(boolean lunScoped) { this.lunScoped = lunScoped; }

    /** Whether the function addresses one logical unit (its LUN field is meaningful). */
    public boolean lunScoped() { return lunScoped; }

    /** RFC 7143 §11.5.1 function codes; null for TASK REASSIGN (8, a transport matter) and unknown codes. */
    public static TmfFunction fromIscsiFunction(int function) {
        return switch (function) {
            case 1 -> ABORT_TASK;
            case 2 -> ABORT_TASK_SET;
            case 3 -> CLEAR_ACA;
            case 4 -> CLEAR_TASK_SET;
            case 5 -> LOGICAL_UNIT_RESET;
            case 6 -> TARGET_WARM_RESET;
            case 7 -> TARGET_COLD_RESET;
            case 9 -> QUERY_TASK;
            case 10 -> QUERY_TASK_SET;
            case 11 -> I_T_NEXUS_RESET;
            case 12 -> QUERY_ASYNCHRONOUS_EVENT;
            default -> null;
        };
    }
}
