package io.hostwide.iscsi.server;

import io.hostwide.iscsi.login.Admission;
import io.hostwide.iscsi.login.SessionRequest;
import io.hostwide.iscsi.spec.LoginStatus;
import io.hostwide.tcm.TargetCore;
import io.hostwide.tcm.tmf.TaskManagement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The sessions of the server by TSIH: admits leading logins (new sessions or reinstatements, RFC 7143 §6.3.5) and
 * connections joining a session (MC/S; a login with a CID in use reinstates that connection, §6.3.4).
 */
final class SessionRegistry {
    private final TargetCore core;
    private final int queueDepth;
    private final Map<Integer, IscsiSession> byTsih = new ConcurrentHashMap<>();
    private int nextTsih = 1;

    private final AsyncEvents events;

    SessionRegistry(TargetCore core, int queueDepth, AsyncEvents events) {
        this.core = core;
        this.queueDepth = queueDepth;
        this.events = events;
    }

    int size() {
        return byTsih.size();
    }

    /** The core's task manager: task management requests and I_T nexus loss go there. */
    TaskManagement taskManagement() {
        return core.taskManagement();
    }

    List<IscsiSession> sessions() {
        return new ArrayList<>(byTsih.values());
    }

    void remove(IscsiSession s) {
        byTsih.remove(s.tsih, s);
    }

    /** Admits {@code c} under {@code req}; on success the connection is attached to its session. */
    synchronized Admission admit(SessionRequest req, ExportedTarget target, Connection c) {
        if (req.tsih() != 0) {
            return join(req, c);
        }
        // RFC 7143 §6.3.5: a leading login with the ISID of a live session of the same I_T nexus reinstates it; the
        // old session's connections and tasks are cleaned up first (ERL 0).
        for (IscsiSession old : byTsih.values()) {
            if (old.isid == req.isid() && old.initiatorName.equals(req.initiatorName())
                    && (old.target == null ? req.targetName() == null
                            : req.targetName() != null && old.target.name().equals(req.targetName()))) {
                old.close();
            }
        }
        int tsih = allocateTsih();
        if (tsih == 0) {
            return Admission.refused(LoginStatus.OUT_OF_RESOURCES);
        }
        IscsiSession s = new IscsiSession(this, tsih, req.isid(), req.initiatorName(), target, req.parameters(),
                req.cmdSn(), queueDepth);
        if (target != null) {
            // SAM-5 initiator port name for iSCSI: InitiatorName + ",i,0x" + ISID (RFC 7143 §4.2.7.1)
            String portName = req.initiatorName() + ",i,0x" + String.format("%012x", req.isid());
            try {
                s.core = core.openSession(target.port(), s, req.initiatorName(), portName);
                s.core.unitAttentionListener((lun, asc) -> events.unitAttention(s, lun.mappedLun(), asc));
            } catch (IllegalArgumentException e) {
                return Admission.refused(LoginStatus.AUTHORIZATION_FAILURE);
            }
        }
        byTsih.put(tsih, s);
        s.attach(c);
        c.bind(s);
        return new Admission(LoginStatus.SUCCESS, tsih, s.expCmdSn(), s.maxCmdSn());
    }

    private Admission join(SessionRequest req, Connection c) {
        IscsiSession s = byTsih.get(req.tsih());
        if (s == null || s.isid != req.isid() || !s.initiatorName.equals(req.initiatorName()) || s.discovery()
                || req.targetName() == null || !s.target.name().equals(req.targetName())) {
            return Admission.refused(LoginStatus.SESSION_DOES_NOT_EXIST);
        }
        Connection same = s.connection(req.cid());
        if (same != null) {
            same.close("connection reinstated"); // RFC 7143 §6.3.4: connection reinstatement, the old CID goes
        }
        if (s.connections().size() >= s.params.maxConnections()) {
            return Admission.refused(LoginStatus.TOO_MANY_CONNECTIONS);
        }
        s.attach(c);
        c.bind(s);
        return new Admission(LoginStatus.SUCCESS, s.tsih, s.expCmdSn(), s.maxCmdSn());
    }

    private int allocateTsih() {
        for (int i = 0; i < 65535; i++) {
            int t = nextTsih;
            nextTsih = nextTsih == 65535 ? 1 : nextTsih + 1; // TSIH 0 means "new session", RFC 7143 §11.12.6
            if (!byTsih.containsKey(t)) {
                return t;
            }
        }
        return 0;
    }
}
