package io.hostwide.tcm.pr;

import io.hostwide.tcm.dispatch.Command;
import io.hostwide.tcm.lu.ItNexus;
import io.hostwide.tcm.lu.PrChange;
import io.hostwide.tcm.lu.PrState;
import io.hostwide.tcm.lu.PrType;
import io.hostwide.tcm.lu.Registration;
import io.hostwide.tcm.lu.SharedReservations;
import io.hostwide.tcm.port.TargetPort;
import io.hostwide.tcm.spi.SenseReason;

import java.util.ArrayList;
import java.util.List;

/**
 * REGISTER AND MOVE (SPC-4 §5.13.8, parameter list Table 175): the reservation holder registers another I_T
 * nexus — named by a TransportID and a relative target port identifier — with the SERVICE ACTION RESERVATION KEY
 * and moves the reservation to it, keeping type and scope; UNREG also unregisters the sender. With shared
 * reservations the destination port may be one of another gateway (the ports each gateway advertised).
 * <pre>
 *  0..7  RESERVATION KEY      8..15 SERVICE ACTION RESERVATION KEY   17 UNREG(1) APTPL(0)
 * 18..19 RELATIVE TARGET PORT IDENTIFIER   20..23 TRANSPORTID PARAMETER DATA LENGTH   24.. TransportID
 * </pre>
 */
final class RegisterAndMove {
    private RegisterAndMove() {}

    static int execute(Command cmd, long paramLength) {
        if (paramLength < 24 || cmd.dataOutLength() < 24) {
            return cmd.fail(SenseReason.PARAMETER_LIST_LENGTH_ERROR);
        }
        long tidLength = cmd.outU32(20);
        if (24 + tidLength != paramLength || cmd.dataOutLength() < paramLength) {
            return cmd.fail(SenseReason.PARAMETER_LIST_LENGTH_ERROR);
        }
        String dest = TransportIds.iscsiInitiatorPort(cmd, 24, (int) tidLength);
        if (dest == null) {
            return cmd.failParameterField(24, 7);
        }
        int rtpi = cmd.outU16(18);
        String destPort = portName(cmd, rtpi);
        if (destPort == null) {
            return cmd.failParameterField(18, 7);
        }
        long key = cmd.outS64(0);
        long saKey = cmd.outS64(8);
        boolean unreg = (cmd.outU8(17) & 0x02) != 0;
        boolean aptpl = (cmd.outU8(17) & 0x01) != 0;
        return PersistentReserveOut.run(cmd, s -> move(s, cmd, key, saKey, dest, destPort, rtpi, unreg, aptpl));
    }

    /** A port of this target here, or (shared reservations) one another gateway advertised; null if none. */
    private static String portName(Command cmd, int rtpi) {
        for (TargetPort p : cmd.targetPort().target().ports()) {
            if (p.relativePortId() == rtpi) {
                return p.portName();
            }
        }
        SharedReservations sh = cmd.device().reservations().shared();
        return sh == null ? null : sh.portName(rtpi);
    }

    private static PrChange move(PrState s, Command cmd, long key, long saKey, String dest, String destPort,
                                 int destRtpi, boolean unreg, boolean aptpl) {
        ItNexus me = cmd.nexus();
        Registration mine = s.registrationOf(me);
        if (mine == null || mine.key() != key) {
            return PersistentReserveOut.fail(cmd, SenseReason.RESERVATION_CONFLICT);
        }
        if (!s.reserved() || PrType.allRegistrants(s.type()) || !s.isHolder(mine)) {
            return PersistentReserveOut.fail(cmd, SenseReason.RESERVATION_CONFLICT);
        }
        if (saKey == 0) {
            return PrChange.none(() -> cmd.failParameterField(8, 7));
        }
        if (dest.equals(me.initiatorPortName()) && destRtpi == me.relativeTargetPortId()) {
            return PrChange.none(() -> cmd.failParameterField(24, 7)); // moving to itself
        }
        List<Registration> regs = new ArrayList<>(s.registrations());
        Registration target = null;
        for (Registration x : regs) {
            if (x.initiatorPortName().equals(dest) && (x.allTargetPorts() || destPort.equals(x.targetPortName()))) {
                target = x;
            }
        }
        Registration moved = new Registration(dest, destPort, destRtpi, saKey, false);
        if (target != null) {
            moved = target.withKey(saKey);
            regs.set(regs.indexOf(target), moved);
        } else {
            regs.add(moved);
        }
        if (unreg) {
            regs.remove(mine);
        }
        return PrChange.to(new PrState(s.generation() + 1, regs, s.type(), moved, s.spc2Holder(), aptpl),
                PersistentReserveOut.GOOD);
    }
}
