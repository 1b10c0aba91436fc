package io.hostwide.cli.lab;

import io.hostwide.tcm.dispatch.Command;
import io.hostwide.tcm.dispatch.CommandGate;

import java.util.concurrent.locks.Lock;

/**
 * A target-core gate run under a lock on every command, as LIO ran its checks before seed 002's series: the ALUA
 * state check under {@code lun_tg_pt_gp_lock}, the task-attribute bookkeeping under {@code delayed_cmd_lock} on
 * submission and completion, the reservation check under {@code dev_reservation_lock}. The lock is the switch; the
 * gate's decision is unchanged, so a difference in throughput or CPU per I/O is the lock's cost alone.
 */
final class LockedGate implements CommandGate {
    private final CommandGate inner;
    private final Lock lock;
    /** Whether completion takes the lock too (the pre-2021 delayed_cmd_lock did; the other two checks had no exit). */
    private final boolean onExit;

    LockedGate(CommandGate inner, Lock lock, boolean onExit) {
        this.inner = inner;
        this.lock = lock;
        this.onExit = onExit;
    }

    @Override
    public int enter(Command cmd) {
        lock.lock();
        try {
            return inner.enter(cmd);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void exit(Command cmd) {
        if (!onExit) {
            inner.exit(cmd);
            return;
        }
        lock.lock();
        try {
            inner.exit(cmd);
        } finally {
            lock.unlock();
        }
    }
}
