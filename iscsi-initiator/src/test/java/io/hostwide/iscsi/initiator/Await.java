package io.hostwide.iscsi.initiator;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Waits for a positive signal (a counter moved, a state reached) instead of sleeping a fixed window. */
final class Await {
    private Await() {
    }

    /** Polls {@code done} until it holds; fails naming {@code what} after 20 s (a loaded 2-core machine is slow). */
    static void until(String what, BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!done.getAsBoolean()) {
            assertThat(System.nanoTime() - deadline).as("waiting for " + what).isNegative();
            Thread.sleep(5);
        }
    }
}
