package io.hostwide.cli.serve;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * serve never stays half alive after an out-of-memory error nothing contained (issue 12: a 16 TiB RAM LUN hung,
 * answering neither its session nor a new login): one line naming the thread, then exit status 3.
 */
class FatalErrorsTest {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    private final List<Integer> halts = new ArrayList<>();
    private final FatalErrors handler = new FatalErrors(err, halts::add);

    private String printed() { return bytes.toString(StandardCharsets.UTF_8); }

    private void dieIn(String threadName, Throwable e) throws InterruptedException {
        Thread t = new Thread(() -> { throw sneaky(e); }, threadName);
        t.setUncaughtExceptionHandler(handler);
        t.start();
        t.join(30_000);
        assertThat(t.isAlive()).isFalse();
    }

    @SuppressWarnings("unchecked")
    private static <T extends Throwable> RuntimeException sneaky(Throwable e) throws T {
        throw (T) e;
    }

    @Test
    void anOutOfMemoryErrorNothingContainedEndsServeWithOneLineAndStatus3() throws Exception {
        dieIn("iscsi-accept-/127.0.0.1:3260", new OutOfMemoryError("Java heap space"));
        assertThat(halts).containsExactly(FatalErrors.EXIT_OUT_OF_MEMORY).containsExactly(3);
        assertThat(printed()).isEqualTo("hostwide serve: out of memory in thread iscsi-accept-/127.0.0.1:3260 (Java "
                + "heap space); exiting so a supervisor can restart it (exit status 3)" + System.lineSeparator());
    }

    @Test
    void aWrappedOutOfMemoryErrorCountsToo() throws Exception {
        dieIn("worker", new ExecutionException(new OutOfMemoryError("Direct buffer memory")));
        assertThat(halts).containsExactly(3);
        assertThat(printed()).contains("out of memory in thread worker (java.lang.OutOfMemoryError: Direct buffer memory)");
    }

    @Test
    void otherUncaughtExceptionsEndOnlyTheirThreadWithTheirStack() throws Exception {
        dieIn("some-thread", new IllegalStateException("a bug"));
        assertThat(halts).isEmpty();
        assertThat(printed()).startsWith("Exception in thread \"some-thread\" java.lang.IllegalStateException: a bug")
                .contains("\tat ");
    }
}
