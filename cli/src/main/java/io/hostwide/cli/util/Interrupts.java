package io.hostwide.cli.util;

import sun.misc.Signal;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Ctrl-C for long-running commands: the first SIGINT (or SIGTERM) only asks the
 * command to stop, so it can finish in-flight work and print its summary; a
 * second one exits at once. Commands poll {@link #stopRequested()} or wait on
 * {@link #awaitStop}.
 */
public final class Interrupts {

    private final CountDownLatch stop = new CountDownLatch(1);
    private volatile String signal;

    private Interrupts() {
    }

    /** Installs the handlers for this process and returns the flag they set. */
    public static Interrupts install() {
        Interrupts in = new Interrupts();
        for (String name : new String[] {"INT", "TERM"}) {
            try {
                Signal.handle(new Signal(name), sig -> in.onSignal(sig.getName()));
            } catch (IllegalArgumentException unsupported) {
                // The JVM already owns this signal (e.g. -Xrs); Ctrl-C then ends the process the default way.
            }
        }
        return in;
    }

    /** A flag no signal will set, for tests and embedded use. */
    public static Interrupts none() {
        return new Interrupts();
    }

    private void onSignal(String name) {
        if (signal != null) {
            System.err.println("\nhostwide: second SIG" + name + ", exiting now");
            Runtime.getRuntime().halt(130);
        }
        signal = name;
        stop.countDown();
    }

    /** Asks the command to stop, as a signal would. */
    public void requestStop() {
        if (signal == null) {
            signal = "request";
        }
        stop.countDown();
    }

    public boolean stopRequested() {
        return stop.getCount() == 0;
    }

    /** The signal that stopped us ("INT", "TERM"), or null. */
    public String signal() {
        return signal;
    }

    /** Waits up to the given time for a stop request; true if one came. */
    public boolean awaitStop(long time, TimeUnit unit) throws InterruptedException {
        return stop.await(time, unit);
    }
}
