package io.hostwide.tcm.dispatch;



/**
 * One check between CDB decoding and execution (the per-command gate sequence, see {@link GateSlot}).
 * Gates run on the submitting thread, in slot order, and must not allocate on the SIMPLE fast path.
 */
public interface CommandGate {

    /** Continue with the next gate. */
    int PASS = 0;
    /** The gate failed the command (it called {@link Command#fail}); the core completes it. */
    int FAIL = 1;
    /**
     * The gate parked the command and has the core resume it later, on any thread, with the gate after it (the
     * core's task-attribute gate, and the ALUA gate for a write waiting for a shared LU's lock).
     */
    int DEFER = 2;

    /** @return {@link #PASS}, {@link #FAIL} or {@link #DEFER} */
    int enter(Command cmd);

    /** Called once for every command that passed this gate, after it completed and before the fabric sees it. */
    default void exit(Command cmd) {}
}
