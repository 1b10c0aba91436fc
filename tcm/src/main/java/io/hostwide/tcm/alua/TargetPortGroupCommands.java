package io.hostwide.tcm.alua;

import io.hostwide.scsi.spec.BigEndian;
import io.hostwide.scsi.spec.ScsiOpcode;
import io.hostwide.scsi.spec.ServiceAction;
import io.hostwide.tcm.dispatch.Command;
import io.hostwide.tcm.dispatch.CommandDescriptor;
import io.hostwide.tcm.dispatch.CommandTable;
import io.hostwide.tcm.dispatch.ReservationRule;
import io.hostwide.tcm.dispatch.Row;
import io.hostwide.tcm.dispatch.TransferLength;
import io.hostwide.tcm.lu.AluaAccessState;
import io.hostwide.tcm.lu.AluaGroups;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.lu.Lun;
import io.hostwide.tcm.lu.SharedAccess;
import io.hostwide.tcm.lu.TargetPortGroup;
import io.hostwide.tcm.port.ScsiTarget;
import io.hostwide.tcm.port.TargetPort;
import io.hostwide.tcm.spi.SenseReason;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static io.hostwide.tcm.dispatch.CommandDescriptor.ALUA_STANDBY;
import static io.hostwide.tcm.dispatch.CommandDescriptor.ALUA_TRANSITIONING;
import static io.hostwide.tcm.dispatch.CommandDescriptor.ALUA_UNAVAILABLE;

/**
 * REPORT TARGET PORT GROUPS (SPC-4 §6.27, MAINTENANCE IN 0Ah) and SET TARGET PORT GROUPS (SPC-4 §6.40,
 * MAINTENANCE OUT 0Ah). Both run in every access state. IMPLICIT TRANSITION TIME is that of the group of the
 * port the command came through; SET TARGET PORT GROUPS completes when every requested transition has (after
 * the groups' transition delays).
 * <pre>
 * RTPG header  length format: 0..3 RETURN DATA LENGTH
 *              extended:      0..3 RETURN DATA LENGTH, 4 FORMAT TYPE 001b (6..4), 5 IMPLICIT TRANSITION TIME
 * descriptor   0 PREF(7) STATE(3..0)  1 supported states  2..3 TPG ID  5 STATUS CODE  7 TARGET PORT COUNT
 *              then per port: 2..3 RELATIVE TARGET PORT IDENTIFIER
 * STPG list    0..3 reserved, then 4-byte descriptors: 0 STATE(3..0)  2..3 TARGET PORT GROUP
 * </pre>
 */
public final class TargetPortGroupCommands {
    private TargetPortGroupCommands() {}

    private static final int F = 0xFF;
    private static final int ALL = ALUA_STANDBY | ALUA_UNAVAILABLE | ALUA_TRANSITIONING;

    public static void addTo(CommandTable t) {
        t.add(Row.of(ScsiOpcode.MAINTENANCE_IN, "REPORT TARGET PORT GROUPS").sa(ServiceAction.REPORT_TARGET_PORT_GROUPS)
                .usage(0xFF, 0, 0, 0, 0, F, F, F, F, 0, 0x07).dataIn(TransferLength.field(6, 4))
                .reservation(ReservationRule.ALWAYS_ALLOWED).alua(ALL).timeouts(1, 5)
                .handler(TargetPortGroupCommands::report));
        t.add(Row.of(ScsiOpcode.MAINTENANCE_OUT, "SET TARGET PORT GROUPS").sa(ServiceAction.SET_TARGET_PORT_GROUPS)
                .usage(0x1F, 0, 0, 0, 0, F, F, F, F, 0, 0x07).dataOut(TransferLength.field(6, 4))
                .reservation(ReservationRule.WRITE).alua(ALL).timeouts(5, 30)
                .handler(TargetPortGroupCommands::set));
    }

    static int report(Command cmd) {
        int format = (cmd.cdb()[1] & 0xE0) >>> 5;
        if (format > 1) {
            return cmd.failCdbField(1, 7);
        }
        Device dev = cmd.device();
        AluaGroups alua = dev.alua();
        List<TargetPortGroup> groups = new ArrayList<>(alua.groups());
        groups.sort(java.util.Comparator.comparingInt(TargetPortGroup::id)); // alike on every gateway of a shared LU
        List<List<Integer>> members = new ArrayList<>();
        int len = format == 1 ? 8 : 4;
        for (TargetPortGroup g : groups) {
            List<Integer> ports = members(cmd.targetPort().target(), dev, g);
            members.add(ports);
            len += 8 + 4 * ports.size();
        }
        byte[] d = cmd.scratch(len);
        BigEndian.put32(d, 0, len - 4);
        int p = 4;
        if (format == 1) {
            d[4] = 0x10;
            d[5] = (byte) cmd.sessionLun().lun().aluaGroup().implicitTransitionSeconds(); // as LIO: the receiving port's group
            p = 8;
        }
        for (int i = 0; i < groups.size(); i++) {
            AluaAccessState st = groups.get(i).accessState();
            d[p] = (byte) ((st.preferred() ? 0x80 : 0) | st.state());
            d[p + 1] = (byte) AluaGroups.SUPPORTED_STATES;
            BigEndian.put16(d, p + 2, groups.get(i).id());
            d[p + 5] = (byte) st.status();
            d[p + 7] = (byte) members.get(i).size();
            p += 8;
            for (int rtpi : members.get(i)) {
                BigEndian.put16(d, p + 2, rtpi);
                p += 4;
            }
        }
        return cmd.respond(d, len);
    }

    /** Relative target port identifiers of the target's ports that export {@code dev} through group {@code g}. */
    private static List<Integer> members(ScsiTarget target, Device dev, TargetPortGroup g) {
        List<Integer> out = new ArrayList<>();
        for (TargetPort port : target.ports()) {
            for (Lun l : port.luns()) {
                if (l.device() == dev && l.aluaGroup() == g && !out.contains(port.relativePortId())) {
                    out.add(port.relativePortId());
                }
            }
        }
        for (int rtpi : g.remotePorts()) { // the group's ports in other gateway processes (GatewayAlua)
            if (!out.contains(rtpi)) {
                out.add(rtpi);
            }
        }
        return out;
    }

    /** Validates every descriptor first, then applies them: a rejected list changes no state. */
    static int set(Command cmd) {
        int n = cmd.dataOutLength();
        if (n == 0) {
            return CommandDescriptor.DONE;
        }
        if (n < 4 || (n - 4) % 4 != 0) {
            return cmd.fail(SenseReason.PARAMETER_LIST_LENGTH_ERROR);
        }
        AluaGroups alua = cmd.device().alua();
        int count = (n - 4) / 4;
        TargetPortGroup[] targets = new TargetPortGroup[count];
        int[] states = new int[count];
        for (int i = 0; i < count; i++) {
            int off = 4 + 4 * i;
            int state = cmd.outU8(off) & 0x0F;
            if (!AluaAccessState.valid(state) || state == AluaAccessState.TRANSITIONING) {
                return cmd.failParameterField(off, 3); // an explicit request cannot ask for transitioning
            }
            TargetPortGroup g = alua.group(cmd.outU16(off + 2));
            if (g == null) {
                return cmd.failParameterField(off + 2, 7);
            }
            targets[i] = g;
            states[i] = state;
        }
        SharedAccess shared = alua.shared();
        if (shared != null) { // states follow the shared LU's ownership: its policy carries the request out
            shared.explicitRequest(List.of(targets), states, failure -> {
                if (failure != null) {
                    cmd.fail(failure);
                }
                cmd.complete();
            });
            return CommandDescriptor.ASYNC;
        }
        // LIO-style: SET TARGET PORT GROUPS returns once every requested group has reached its state; each
        // pending transition counts down, the handler holds one count until all are started
        AtomicInteger outstanding = new AtomicInteger(1);
        Runnable done = () -> {
            if (outstanding.decrementAndGet() == 0) {
                cmd.complete();
            }
        };
        for (int i = 0; i < count; i++) {
            outstanding.incrementAndGet();
            if (alua.transition(targets[i], states[i], AluaAccessState.STATUS_EXPLICIT, cmd.nexus(), done)
                    != AluaGroups.PENDING) {
                outstanding.decrementAndGet();
            }
        }
        if (outstanding.decrementAndGet() != 0) {
            return CommandDescriptor.ASYNC;
        }
        return CommandDescriptor.DONE;
    }
}
