package io.hostwide.tcm.core;

import io.hostwide.tcm.dispatch.GateSlot;
import io.hostwide.tcm.lu.ItNexus;
import io.hostwide.tcm.lu.SharedAccess;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

/**
 * Aborts tasks (SAM-5 §7) for task management and PREEMPT AND ABORT: every live command that matches is marked
 * through its abort word (a CAS that loses against completion, so a command completes exactly once, either normally
 * or aborted). Marked commands parked by the task-attribute gate complete at once without running; those waiting on
 * an I/O queue complete when a queue thread reaches them, without running; executing ones when their handler
 * returns. Each ends in {@code Fabric.complete}: with TASK ABORTED status if it belonged to another I_T nexus than
 * the requester (TAS = 1 in the control mode page), else with {@code responseSuppressed()}. Whoever asked is told
 * once all of them were delivered.
 */
public final class TaskAborter {
    private final Registry registry;
    private final Pipeline pipeline;
    private final CopyOnWriteArrayList<AbortOperation> active = new CopyOnWriteArrayList<>();

    TaskAborter(Registry registry, Pipeline pipeline) {
        this.registry = registry;
        this.pipeline = pipeline;
    }

    /**
     * Aborts the live commands of the core's sessions that {@code match}, except {@code exclude}, then runs
     * {@code effects} (the side effects of the function, after the scan) and, once every aborted command has been
     * through its fabric, {@code done} — at once when there was none.
     *
     * @param requester     the I_T nexus that asked: its commands end with the response suppressed, others' with
     *                      TASK ABORTED
     * @param requesterTags filled with the tags of the requester's commands this aborted (null: not wanted)
     * @return how many commands this aborted
     */
    public int abort(ItNexus requester, Predicate<CoreCommand> match, CoreCommand exclude, List<Long> requesterTags,
                     Runnable done, Runnable effects) {
        int found = 0;
        AbortOperation op = new AbortOperation(done, active);
        active.add(op);
        Set<LuRuntime> touched = new LinkedHashSet<>();
        for (Session x : registry.sessions()) {
            for (CoreCommand c : x.commandObjects()) {
                long w = c.abortWord();  // volatile read first: the fields below belong to this submission or later
                if (!CoreCommand.live(w) || c == exclude || !match.test(c)) {
                    continue;
                }
                long tag = c.tag();
                LuRuntime rt = c.runtime;
                if (c.requestAbort(w, c.session() != requester)) {
                    op.add(c, w);
                    found++;
                    if (c.session() == requester && requesterTags != null) {
                        requesterTags.add(tag);
                    }
                    if (rt != null) {
                        touched.add(rt);
                    }
                }
            }
        }
        if (pipeline.gate(GateSlot.TASK_ATTRIBUTE) instanceof TaskAttributeGate g) {
            for (LuRuntime rt : touched) {
                g.abortParked(rt.taskSet());
            }
        }
        for (LuRuntime rt : touched) { // writes an LU shared by several gateways parked in the ALUA gate
            SharedAccess shared = rt.device().alua().shared();
            if (shared != null) {
                shared.releaseAborted();
            }
        }
        effects.run();
        op.arm();
        op.check();
        return found;
    }

    /** Whether a live command of the core's sessions matches (QUERY TASK, QUERY TASK SET). */
    public boolean anyLive(Predicate<CoreCommand> match) {
        for (Session x : registry.sessions()) {
            for (CoreCommand c : x.commandObjects()) {
                if (CoreCommand.live(c.abortWord()) && match.test(c)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Called by the pipeline after the fabric saw an aborted command: finishes requests waiting for it. */
    void delivered() {
        for (AbortOperation op : active) {
            op.check();
        }
    }

    /** Requests still waiting for aborted commands. */
    public int pending() { return active.size(); }
}
