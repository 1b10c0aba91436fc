package io.hostwide.cli.serve;

import sun.misc.Signal;

import java.util.concurrent.atomic.AtomicBoolean;

/** SIGHUP as a flag the serve loop polls: reload the configuration. */
final class Signals {

    private Signals() {
    }

    /** @param warn told when SIGHUP cannot be caught (e.g. ignored under nohup) */
    static AtomicBoolean onHangup(java.util.function.Consumer<String> warn) {
        AtomicBoolean flag = new AtomicBoolean();
        try {
            Signal.handle(new Signal("HUP"), sig -> flag.set(true));
        } catch (IllegalArgumentException unavailable) {
            warn.accept("SIGHUP cannot be caught here (ignored, e.g. under nohup): use 'hostwide admin reload'");
        }
        return flag;
    }
}
