package io.hostwide.blk;

/** What a driver's timeout handler decided ({@code enum blk_eh_timer_return}). */
public enum TimeoutAction {
    /** The request is still legitimately in flight: arm its timer again. */
    RESET_TIMER,
    /** The driver owns the request now and completes it itself (possibly already did). */
    DONE
}
