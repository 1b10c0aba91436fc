package io.hostwide.cli.serve;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.function.IntConsumer;

/**
 * What serve does with an error that no thread handled. Out of memory where nothing contained it (the accept loop,
 * a background or I/O worker, the keepalive timer) would otherwise leave serve half alive: listening but never
 * answering a login, or with a logical unit waiting forever for a worker that died. That is the hang issue 12 saw;
 * a process that exits is one a supervisor (systemd's {@code Restart=on-failure}) restarts. So serve prints one line
 * naming the thread and halts with {@link #EXIT_OUT_OF_MEMORY}. Commands are contained before they get here: the
 * target core fails a command whose execution ran out of memory with INTERNAL TARGET FAILURE, a RAM page that cannot
 * be allocated fails its write with SPACE ALLOCATION FAILED, and a connection that runs out of memory is closed.
 * Other uncaught exceptions end only their thread, with its stack trace, as the JVM's default does.
 *
 * <p>Why not {@code -XX:+ExitOnOutOfMemoryError}: it would also end serve for the out-of-memory errors that are
 * contained on purpose (one connection's direct buffers at {@code -XX:MaxDirectMemorySize}, one command), turning
 * what one initiator feels into an outage for all, and its message does not say where.
 */
final class FatalErrors implements Thread.UncaughtExceptionHandler {
    /** serve's exit status after an out-of-memory error it could not contain (2 is a usage or configuration error). */
    static final int EXIT_OUT_OF_MEMORY = 3;
    /** Written when even the message cannot be built: no allocation needed for these. */
    private static final byte[] PREFIX = "hostwide serve: out of memory in thread ".getBytes(StandardCharsets.UTF_8);
    private static final byte[] SUFFIX = ("; exiting so a supervisor can restart it (exit status "
            + EXIT_OUT_OF_MEMORY + ")\n").getBytes(StandardCharsets.UTF_8);

    private final PrintStream err;
    private final IntConsumer halt;

    /** @param halt ends the process without running shutdown hooks ({@code Runtime.getRuntime()::halt} in serve) */
    FatalErrors(PrintStream err, IntConsumer halt) {
        this.err = err;
        this.halt = halt;
    }

    /** Installs the handler for every thread of this process; returns the one it replaces, to restore later. */
    static Thread.UncaughtExceptionHandler install(PrintStream err) {
        Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler(new FatalErrors(err, Runtime.getRuntime()::halt));
        return previous;
    }

    @Override
    public void uncaughtException(Thread t, Throwable e) {
        if (!outOfMemory(e)) {
            err.print("Exception in thread \"" + t.getName() + "\" ");
            e.printStackTrace(err);
            return;
        }
        try {
            err.println("hostwide serve: out of memory in thread " + t.getName() + " (" + e.getMessage()
                    + "); exiting so a supervisor can restart it (exit status " + EXIT_OUT_OF_MEMORY + ")");
            err.flush();
        } catch (Throwable again) { // the message needed memory too: the fixed parts, and the name if it can be
            err.println();
            err.write(PREFIX, 0, PREFIX.length);
            try {
                err.print(t.getName());
            } catch (Throwable stillNone) {
                err.print('?');
            }
            err.write(SUFFIX, 0, SUFFIX.length);
            err.flush();
        } finally {
            halt.accept(EXIT_OUT_OF_MEMORY);
        }
    }

    /** An OutOfMemoryError, also wrapped (an executor's ExecutionException, an ExceptionInInitializerError). */
    static boolean outOfMemory(Throwable e) {
        for (int depth = 0; e != null && depth < 8; depth++, e = e.getCause()) {
            if (e instanceof OutOfMemoryError) {
                return true;
            }
        }
        return false;
    }
}
