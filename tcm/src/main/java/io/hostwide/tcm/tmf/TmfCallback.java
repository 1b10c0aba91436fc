package io.hostwide.tcm.tmf;

/**
 * Receives the result of a task management request, exactly once, after every command it aborted has completed
 * (SAM-5 §7.1: the response follows the end of the affected tasks). Runs on the requesting thread when nothing had
 * to be waited for, else on the thread that completed the last aborted command (possibly a backstore I/O thread):
 * it must not block.
 */
@FunctionalInterface
public interface TmfCallback {
    void done(TmfResult result);
}
