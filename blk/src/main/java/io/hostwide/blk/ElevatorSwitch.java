package io.hostwide.blk;

/**
 * {@code elevator_switch} (block/elevator.c) for one queue: attaches, replaces or detaches its scheduler while I/O
 * runs, and sizes the scheduler tags that come with it. The queue keeps {@code q.elevator} and
 * {@code q.nrRequests} (the I/O path reads them); this class is the only writer.
 */
final class ElevatorSwitch {
    private final RequestQueue q;
    /** Serialises switches; a switch waits for I/O, so it is never taken on the I/O path. */
    private final Object switchLock = new Object();

    ElevatorSwitch(RequestQueue q) {
        this.q = q;
    }

    /**
     * Freezes the queue (new submissions wait, every allocated request drains through the old scheduler),
     * quiesces it, switches, then releases both; nothing is lost or failed. {@code next} null detaches.
     */
    void switchTo(IoScheduler next) {
        synchronized (switchLock) {
            if (q.isDying()) {
                throw new IllegalStateException("cannot switch scheduler on " + q.name + ": queue is going away");
            }
            q.freeze.freeze();
            try {
                q.quiesce();
                try {
                    switchElevator(next);
                } finally {
                    q.unquiesce();
                }
            } finally {
                q.freeze.unfreeze();
            }
        }
    }

    private void switchElevator(IoScheduler next) {
        IoScheduler old = q.elevator;
        if (old != null) {
            q.elevator = null;
            old.exit(q);
        }
        if (next == null) {
            for (Hctx h : q.hctxs) {
                h.schedTags = null;
            }
            q.nrRequests = q.set.config.queueDepth();
            return;
        }
        int nr = 2 * Math.min(q.set.config.queueDepth(), 128);
        allocSchedTags(nr);
        int minShallow = next.minShallowDepth();
        if (minShallow > 0) {
            for (Hctx h : q.hctxs) {
                h.schedTags.bitmapTags.setMinShallowDepth(minShallow);
            }
        }
        q.nrRequests = nr;
        next.init(q);
        next.depthUpdated(q, nr);
        q.elevator = next;
    }

    /**
     * Scheduler tags kept apart from driver tags: per hctx, or with host-wide tags one pool every hctx of the
     * queue shares ({@code sched_shared_tags}).
     */
    private void allocSchedTags(int nr) {
        TagSet set = q.set;
        int reserved = set.config.reservedTags();
        int depth = nr + reserved;
        if (set.hostTagset) {
            Tags shared = set.newTags(depth, reserved);
            for (Hctx h : q.hctxs) {
                h.schedTags = shared;
            }
        } else {
            for (Hctx h : q.hctxs) {
                h.schedTags = set.newTags(depth, reserved);
            }
        }
    }
}
