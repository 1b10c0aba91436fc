package io.hostwide.iscsi.server;

import io.hostwide.iscsi.pdu.TaskManagementRequest;
import io.hostwide.iscsi.pdu.TaskManagementResponse;
import io.hostwide.iscsi.spec.TaskManagement;
import io.hostwide.scsi.spec.LunAddress;
import io.hostwide.tcm.core.Session;
import io.hostwide.tcm.lu.SessionLun;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.port.ScsiTarget;
import io.hostwide.tcm.tmf.TmfFunction;
import io.hostwide.tcm.tmf.TmfResponse;
import io.hostwide.tcm.tmf.TmfResult;

/**
 * Task Management Function Request (RFC 7143 §11.5) → the core's transport-independent task manager.
 *
 * <p>Tasks the transport still holds (a write waiting for its Data-Out never reached the core) are ended here
 * without a response; the core aborts the rest. The core calls back only after every affected command has been
 * through {@link IscsiSession#complete} (suppressed for this session, TASK ABORTED for others), so the TMF response
 * follows the responses of all affected tasks (§11.5.1 ordering). TARGET COLD RESET then closes every connection
 * to the target (§11.5.1: "all TCP connections ... MUST be terminated").
 */
final class TmfHandler {
    private final FullFeature ffp;

    TmfHandler(FullFeature ffp) {
        this.ffp = ffp;
    }

    void handle(TaskManagementRequest r) {
        IscsiSession s = ffp.session;
        if (r.function() == TaskManagement.TASK_REASSIGN) { // connection recovery needs ERL 2
            respond(r, TaskManagement.TASK_ALLEGIANCE_REASSIGNMENT_NOT_SUPPORTED);
            return;
        }
        TmfFunction f = TmfFunction.fromIscsiFunction(r.function());
        Session nexus = s.core;
        if (f == null || nexus == null) { // §11.5.1: an unknown function; a discovery session has no LUs
            respond(r, TaskManagement.FUNCTION_REJECTED);
            return;
        }
        int held = endHeldTasks(f, r);
        endHeldTasksOfOtherSessions(f, r.lun());
        ffp.conn.server.registry.taskManagement().request(nexus, f, r.lun(), r.referencedTaskTag() & 0xffff_ffffL,
                result -> answer(r, f, held, result));
    }

    private void answer(TaskManagementRequest r, TmfFunction f, int held, TmfResult result) {
        int response = result.response().iscsiResponse();
        if (f == TmfFunction.ABORT_TASK && held > 0 && result.response() == TmfResponse.TASK_DOES_NOT_EXIST) {
            response = TaskManagement.FUNCTION_COMPLETE; // it was still waiting for Data-Out: ended here
        }
        respond(r, response);
        if (f == TmfFunction.TARGET_COLD_RESET) {
            ffp.conn.writer.flush();
            ffp.conn.server.closeSessionsOf(ffp.session.target);
        }
    }

    private void respond(TaskManagementRequest r, int response) {
        IscsiSession s = ffp.session;
        ffp.conn.writer.send(sn -> new TaskManagementResponse(response, r.initiatorTaskTag(), sn, s.expCmdSn(),
                s.maxCmdSn()), true);
        if (!ffp.conn.onReaderThread()) { // answered from the thread that completed the last aborted command
            ffp.conn.writer.flush();
        }
    }

    /** Ends this session's tasks still waiting for Data-Out that the function covers; returns how many. */
    private int endHeldTasks(TmfFunction f, TaskManagementRequest r) {
        int n = 0;
        for (Connection c : ffp.session.connections()) {
            FullFeature other = c.fullFeature();
            if (other == null) {
                continue;
            }
            java.util.List<Task> victims = switch (f) {
                case ABORT_TASK -> other.waitingTasks(0, r.referencedTaskTag(), true);
                case ABORT_TASK_SET, CLEAR_TASK_SET, LOGICAL_UNIT_RESET -> other.waitingTasks(r.lun(), 0, false);
                case I_T_NEXUS_RESET, TARGET_WARM_RESET, TARGET_COLD_RESET -> other.waitingTasks(-1, 0, false);
                default -> java.util.List.of();
            };
            for (Task t : victims) {
                if (other.abortTask(t)) {
                    n++;
                }
            }
        }
        return n;
    }

    /**
     * LOGICAL UNIT RESET and CLEAR TASK SET abort the tasks of every I_T nexus on the LU, the target resets those
     * on the whole target (SAM-5 §7.4, §7.6, §7.9-§7.10). The core aborts the ones it holds; writes of other
     * sessions still waiting here for Data-Out (an R2T outstanding) never reached it, so they end here, with
     * TASK ABORTED, before the core runs the function: their responses precede this TMF's response (RFC 7143
     * §11.5.1) and the write they were collecting never happens.
     */
    private void endHeldTasksOfOtherSessions(TmfFunction f, long lun) {
        Session nexus = ffp.session.core;
        java.util.function.BiPredicate<Session, Task> covered;
        switch (f) {
            case CLEAR_TASK_SET, LOGICAL_UNIT_RESET -> {
                Device dev = device(nexus, lun);
                if (dev == null) {
                    return; // the core answers INCORRECT LOGICAL UNIT NUMBER
                }
                covered = (other, t) -> device(other, t.lun) == dev;
            }
            case TARGET_WARM_RESET, TARGET_COLD_RESET -> {
                ScsiTarget target = nexus.port().target();
                covered = (other, t) -> other.port().target() == target;
            }
            default -> {
                return; // the other functions stay within this I_T nexus
            }
        }
        for (IscsiSession s : ffp.conn.server.registry.sessions()) {
            Session other = s.core;
            if (s == ffp.session || other == null) {
                continue;
            }
            for (Connection c : s.connections()) {
                FullFeature owner = c.fullFeature();
                if (owner != null) {
                    for (Task t : owner.tasks.waiting(t -> covered.test(other, t))) {
                        owner.abortForOtherNexus(t);
                    }
                }
            }
        }
    }

    private static Device device(Session s, long lun) {
        int n = LunAddress.decode(lun);
        SessionLun sl = n >= 0 ? s.lookup(n) : null;
        return sl == null ? null : sl.device();
    }
}
