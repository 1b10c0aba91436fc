package io.hostwide.tcm;

/**
 * One check between CDB decoding and execution (the per-command gate sequence, see {@link GateSlot}).
 * Gates run on the submitting thread, in slot order, and must not allocate on the SIMPLE fast path.
 */
public interface CommandGate {

    /** Continue with the next gate. */
    int PASS = 0;
    /** The gate failed the command (it called {@link TargetCommand#fail}); the core completes it. */
    int FAIL = 1;
    /** The gate parked the command and will call {@link TargetCore#resume(TargetCommand)} later, on any thread. */
    int DEFER = 2;

    /** @return {@link #PASS}, {@link #FAIL} or {@link #DEFER} */
    int enter(TargetCommand cmd);

    /** Called once for every command that passed this gate, after it completed and before the fabric sees it. */
    default void exit(TargetCommand cmd) {}
}
