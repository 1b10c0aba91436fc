package io.hostwide.tcm.spi;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An error thrown by a background task reaches the uncaught-exception handler (issue 12: a scheduled executor kept
 * it in a future nobody read, so an OutOfMemoryError in a SANITIZE chunk vanished and the LU stayed "in progress").
 */
class BackgroundTest {
    @Test
    void anOutOfMemoryErrorInATaskReachesTheUncaughtExceptionHandler() throws Exception {
        String name = "background-test-" + System.nanoTime();
        AtomicReference<Throwable> seen = new AtomicReference<>();
        CountDownLatch reported = new CountDownLatch(1);
        Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> {
            if (t.getName().equals(name)) {
                seen.set(e);
                reported.countDown();
            } else if (previous != null) {
                previous.uncaughtException(t, e);
            }
        });
        try (Background bg = Background.daemon(name)) {
            bg.schedule(() -> { throw new OutOfMemoryError("injected"); }, 0);
            assertThat(reported.await(30, TimeUnit.SECONDS)).as("the error was reported").isTrue();
            assertThat(seen.get()).isInstanceOf(OutOfMemoryError.class).hasMessage("injected");
            CountDownLatch next = new CountDownLatch(1); // and the executor still runs what comes next
            bg.schedule(next::countDown, 0);
            assertThat(next.await(30, TimeUnit.SECONDS)).isTrue();
        } finally {
            Thread.setDefaultUncaughtExceptionHandler(previous);
        }
    }
}
