package io.hostwide.tcm.core;

import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.lu.Lun;
import io.hostwide.tcm.lu.SessionLun;
import io.hostwide.tcm.port.NodeAcl;
import io.hostwide.tcm.port.ScsiTarget;
import io.hostwide.tcm.port.TargetPort;

import java.util.List;

/** The debugfs-style text view of a core (for {@code hostwide stat} and test failures); not for hot paths. */
final class CoreDump {
    private CoreDump() {}

    static String dump(Registry core, List<LuRuntime> runtimes) {
        StringBuilder sb = new StringBuilder();
        for (ScsiTarget t : core.targets()) {
            sb.append("target ").append(t.name()).append('\n');
            for (TargetPort p : t.ports()) {
                sb.append("  port tpgt=").append(p.tag()).append(" rtpi=").append(p.relativePortId())
                        .append(" demo=").append(p.demoMode()).append('\n');
                for (Lun l : p.luns()) {
                    sb.append("    lun ").append(l.lunNumber()).append(" -> ").append(l.device().name())
                            .append(" tg_pt_gp=").append(l.aluaGroup().id()).append('\n');
                }
            }
        }
        for (LuRuntime rt : runtimes) {
            Device d = rt.device();
            sb.append("device ").append(d.name()).append(" [").append(d.backstore().describe()).append("]")
                    .append(" wce=").append(d.modePages().writeCacheEnabled())
                    .append(" wp=").append(d.writeProtected())
                    .append(" medium=").append(d.mediumLoaded() ? "loaded" : "absent")
                    .append(" prevent=").append(d.mediumRemovalPrevented())
                    .append(" non_ordered=").append(rt.taskSet().nonOrdered())
                    .append(" delayed=").append(rt.taskSet().delayed());
            if (rt.ioQueue() != null) {
                sb.append(" io_in_flight=").append(rt.ioQueue().inFlight()).append('/').append(rt.ioQueue().depth());
            }
            if (rt.tryNowait()) {
                sb.append(" nowait_done=").append(rt.nowaitDone()).append(" nowait_queued=").append(rt.nowaitQueued());
            }
            if (rt.tryNowaitWrites()) {
                sb.append(" nowait_writes_done=").append(rt.nowaitWritesDone())
                        .append(" nowait_writes_queued=").append(rt.nowaitWritesQueued());
            }
            sb.append('\n');
        }
        for (Session s : core.sessions()) {
            NodeAcl acl = s.acl();
            sb.append("session ").append(s.id()).append(' ').append(s.initiatorPortName())
                    .append(acl == null ? " (demo)" : " acl=" + acl.initiatorName()).append('\n');
            for (SessionLun l : s.sessionLuns()) {
                sb.append("  lun ").append(l.mappedLun()).append(" -> ").append(l.device().name())
                        .append(l.readOnly() ? " ro" : " rw").append(" ua_pending=").append(l.unitAttentions().size())
                        .append('\n');
            }
        }
        return sb.toString();
    }
}
