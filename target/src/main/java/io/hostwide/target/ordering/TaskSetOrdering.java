package io.hostwide.target.ordering;

import io.hostwide.target.TargetCommand;
import io.hostwide.target.TargetCore;

import java.util.Iterator;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * SAM-5 §8.6 task attribute ordering of one logical unit, with the counters of LIO's 2021 algorithm (digest §6.3,
 * seed 002): {@code nonOrdered} counts SIMPLE and HEAD OF QUEUE commands executing; {@code delayed} counts parked
 * commands plus a dispatched ORDERED command until it completes (LIO's delayed_cmd_count and
 * ordered_sync_in_progress in one counter, so the SIMPLE fast path reads one field).
 *
 * <ul>
 *   <li>SIMPLE: increment {@code nonOrdered}; run if {@code delayed} is 0. Otherwise undo, park behind the
 *       ORDERED command and kick the drainer. Fast path: one atomic increment and one volatile read, no lock.</li>
 *   <li>HEAD OF QUEUE: increment {@code nonOrdered} and run, even past a pending or running ORDERED command.</li>
 *   <li>ORDERED: always parked; the drainer dispatches it when it reaches the head and nothing SIMPLE runs, and
 *       nothing parked behind it starts until it completed.</li>
 * </ul>
 * The increment-then-read on both sides (SIMPLE: {@code nonOrdered} then {@code delayed}; drainer: {@code delayed}
 * was raised before it reads {@code nonOrdered}) is a Dekker pair over sequentially consistent atomics: at least
 * one side sees the other. The drainer is serialised by a work-in-progress counter (no lock, no lost wake-up) and
 * runs on whichever thread kicks it; it resumes commands inline through {@link TargetCore#resume}.
 */
public final class TaskSetOrdering {
    private final AtomicInteger nonOrdered = new AtomicInteger();
    private final AtomicInteger delayed = new AtomicInteger();
    private final AtomicInteger wip = new AtomicInteger();
    private final ConcurrentLinkedQueue<TargetCommand> parked = new ConcurrentLinkedQueue<>();
    private volatile boolean orderedRunning; // written by the drainer and by the ORDERED command's exit
    private volatile boolean abortSweep;

    /** SIMPLE fast path. @return true to run now, false when parked (the caller returns DEFER). */
    boolean enterSimple(TargetCommand cmd, TargetCore core) {
        nonOrdered.incrementAndGet();    // full fence: Dekker pair with the drainer's nonOrdered read
        if (delayed.get() == 0) {
            return true;
        }
        nonOrdered.decrementAndGet();
        park(cmd, core);
        return false;
    }

    void enterHead() { nonOrdered.incrementAndGet(); }

    void enterOrdered(TargetCommand cmd, TargetCore core) { park(cmd, core); }

    private void park(TargetCommand cmd, TargetCore core) {
        delayed.incrementAndGet();       // before the queue add: a SIMPLE arriving now sees it and parks behind
        parked.add(cmd);
        drain(core);
    }

    /** Completion of a SIMPLE or HEAD OF QUEUE command that ran. */
    void exitNonOrdered(TargetCore core) {
        nonOrdered.decrementAndGet();
        if (delayed.get() > 0) {
            drain(core);
        }
    }

    /** Completion of a dispatched ORDERED command. */
    void exitOrdered(TargetCore core) {
        orderedRunning = false;
        delayed.decrementAndGet();
        drain(core);
    }

    /** Completes parked commands a task management function marked for abort (they never started). */
    public void abortParked(TargetCore core) {
        abortSweep = true;
        drain(core);
    }

    private void drain(TargetCore core) {
        if (wip.getAndIncrement() != 0) {
            return;                      // the running drainer will loop once more
        }
        int missed = 1;
        while (true) {
            dispatchReady(core);
            missed = wip.addAndGet(-missed);
            if (missed == 0) {
                return;
            }
        }
    }

    private void dispatchReady(TargetCore core) {
        while (true) {
            if (abortSweep) {
                abortSweep = false;
                sweepAborted(core);
            }
            if (orderedRunning) {
                return;
            }
            TargetCommand head = parked.peek();
            if (head == null) {
                return;
            }
            if (head.abortRequested()) {
                parked.poll();
                delayed.decrementAndGet();
                core.complete(head);     // completes as aborted; this gate's exit is not run for it
                continue;
            }
            if (OrderingGate.attribute(head) == io.hostwide.scsi.spec.TaskAttribute.ORDERED) {
                if (nonOrdered.get() > 0) {
                    return;              // an older SIMPLE/HEAD command still runs: its exit kicks us again
                }
                orderedRunning = true;   // delayed keeps counting it until exitOrdered
                parked.poll();
            } else {
                nonOrdered.incrementAndGet();
                parked.poll();
                delayed.decrementAndGet();
            }
            core.resume(head);
        }
    }

    private void sweepAborted(TargetCore core) {
        for (Iterator<TargetCommand> it = parked.iterator(); it.hasNext(); ) {
            TargetCommand c = it.next();
            if (c.abortRequested() && parked.remove(c)) {
                delayed.decrementAndGet();
                core.complete(c);
            }
        }
    }

    /** SIMPLE and HEAD OF QUEUE commands executing (for tests and dumps). */
    public int nonOrdered() { return nonOrdered.get(); }

    /** Parked commands plus a running ORDERED one (for tests and dumps). */
    public int delayed() { return delayed.get(); }

    public int parkedCount() { return parked.size(); }

    @Override
    public String toString() {
        return "TaskSetOrdering[nonOrdered=" + nonOrdered + " delayed=" + delayed + " orderedRunning=" + orderedRunning
                + " parked=" + parked.size() + "]";
    }
}
