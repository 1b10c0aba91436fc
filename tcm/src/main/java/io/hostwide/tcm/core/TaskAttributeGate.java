package io.hostwide.tcm.core;

import io.hostwide.scsi.spec.TaskAttribute;
import io.hostwide.tcm.dispatch.Command;
import io.hostwide.tcm.dispatch.CommandDescriptor;
import io.hostwide.tcm.dispatch.CommandGate;


/**
 * SAM-5 task attribute ordering with LIO's 2021 algorithm (digest §6.3; seed 002, patches 1-2):
 * <ul>
 *   <li>HEAD OF QUEUE (and INQUIRY / REPORT LUNS, implicitly) runs at once, even past a pending or running ORDERED;</li>
 *   <li>ORDERED is always parked; it runs alone once every older command has finished, and stays counted as
 *       delayed until it completes so that newer SIMPLE commands park behind it (see {@link TaskSet});</li>
 *   <li>SIMPLE runs at once unless something is parked, else it parks behind it, keeping its place;</li>
 *   <li>completion of a counted command kicks the in-order drainer when commands are parked.</li>
 * </ul>
 * Parked commands are resumed in FIFO order by one drainer at a time ({@link TaskSet#drainWip}), on whichever
 * thread completed the command that unblocked them. ACA was rejected before the gates.
 */
public final class TaskAttributeGate implements CommandGate {
    static final int NONE = 0;
    static final int RUNNING_NON_ORDERED = 1;
    static final int RUNNING_ORDERED = 2;
    static final int PARKED_SIMPLE = 3;
    static final int PARKED_ORDERED = 4;

    private final Pipeline pipeline;

    public TaskAttributeGate(Pipeline pipeline) { this.pipeline = pipeline; }

    @Override
    public int enter(Command c) {
        CoreCommand cmd = (CoreCommand) c; // the core's own gate: every command is the core's
        if (cmd.runtime == null) {
            return PASS; // no logical unit, no task set
        }
        TaskSet ts = cmd.runtime.taskSet();
        TaskAttribute attr = cmd.taskAttribute();
        if (attr == TaskAttribute.HEAD_OF_QUEUE || cmd.descriptor().has(CommandDescriptor.HEAD_OF_QUEUE)) {
            ts.nonOrdered.incrementAndGet();
            cmd.orderingState = RUNNING_NON_ORDERED;
            return PASS;
        }
        if (attr == TaskAttribute.ORDERED) {
            ts.delayedCount.incrementAndGet();
            cmd.orderingState = PARKED_ORDERED;
            ts.park(cmd);
            drain(ts); // the older commands may all have finished already
            return DEFER;
        }
        ts.nonOrdered.incrementAndGet(); // volatile write, then the volatile read below: pairs with ORDERED's
        if (ts.delayedCount.get() == 0) { // increment of delayedCount then the drainer's read of nonOrdered
            cmd.orderingState = RUNNING_NON_ORDERED;
            return PASS;
        }
        ts.nonOrdered.decrementAndGet();
        ts.delayedCount.incrementAndGet();
        cmd.orderingState = PARKED_SIMPLE;
        ts.park(cmd);
        drain(ts); // covers the race where the command we queue behind completed meanwhile
        return DEFER;
    }

    @Override
    public void exit(Command c) {
        CoreCommand cmd = (CoreCommand) c;
        if (cmd.runtime == null) {
            return;
        }
        TaskSet ts = cmd.runtime.taskSet();
        int s = cmd.orderingState;
        cmd.orderingState = NONE;
        if (s == RUNNING_NON_ORDERED) {
            ts.nonOrdered.decrementAndGet();
        } else if (s == RUNNING_ORDERED) {
            synchronized (ts) {
                ts.orderedSyncInProgress = false;
            }
            ts.delayedCount.decrementAndGet(); // newer SIMPLE commands stayed parked while it ran
        } else {
            return;
        }
        if (ts.delayedCount.get() > 0) {
            drain(ts);
        }
    }

    /**
     * For task management: takes a command that is still parked off the delayed list, with the counters corrected,
     * and lets the commands it held back run (an aborted ORDERED command no longer blocks newer ones). The caller
     * then completes the command as aborted; it never passed this gate, so {@link #exit} is not called for it.
     *
     * @return false when the command is not parked (it runs or ran; abort it by other means)
     */
    public boolean abortParked(Command c) {
        CoreCommand cmd = (CoreCommand) c;
        if (cmd.runtime == null) {
            return false;
        }
        TaskSet ts = cmd.runtime.taskSet();
        boolean removed;
        synchronized (ts) {
            removed = (cmd.orderingState == PARKED_SIMPLE || cmd.orderingState == PARKED_ORDERED) && ts.unlink(cmd);
            if (removed) {
                cmd.orderingState = NONE;
            }
        }
        if (removed) {
            drain(ts);
        }
        return removed;
    }

    /**
     * Completes the parked commands of a task set that a task management function marked for abort: they never
     * started, so they leave the delayed list (uncounted) and end at once (SAM-5 §7.2). Commands behind a removed
     * ORDERED one may then run. A command marked after this sweep still never runs its handler: the core skips
     * handlers of aborted commands when the drainer resumes it.
     */
    public void abortParked(TaskSet ts) {
        CoreCommand aborted = ts.unlinkAborted();
        while (aborted != null) {
            CoreCommand next = aborted.parkedNext;
            aborted.parkedNext = null;
            pipeline.complete(aborted);
            aborted = next;
        }
        if (ts.delayedCount.get() > 0) {
            drain(ts);
        }
    }

    /** Resumes runnable parked commands in order; a call made while another thread drains makes that one loop. */
    private void drain(TaskSet ts) {
        if (ts.drainWip.getAndIncrement() != 0) {
            return;
        }
        int missed = 1;
        do {
            while (true) {
                CoreCommand next;
                synchronized (ts) {
                    next = ts.takeRunnable();
                }
                if (next == null) {
                    break;
                }
                try {
                    pipeline.resume(next);
                } catch (RuntimeException e) {
                    // only a fabric's complete() throws out of resume; draining must go on (drainWip would stick)
                    Thread t = Thread.currentThread();
                    t.getUncaughtExceptionHandler().uncaughtException(t, e);
                }
            }
            missed = ts.drainWip.addAndGet(-missed);
        } while (missed != 0);
    }
}
