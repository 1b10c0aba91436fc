package io.hostwide.tcm.pr;

import io.hostwide.scsi.spec.BigEndian;
import io.hostwide.scsi.spec.ServiceAction;
import io.hostwide.tcm.dispatch.Command;
import io.hostwide.tcm.lu.PrState;
import io.hostwide.tcm.lu.PrType;
import io.hostwide.tcm.lu.Registration;
import io.hostwide.tcm.lu.SharedReservations;
import io.hostwide.tcm.spi.SenseReason;

import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * PERSISTENT RESERVE IN (SPC-4 §6.15): READ KEYS, READ RESERVATION, REPORT CAPABILITIES, READ FULL STATUS, from
 * one snapshot of the LU's state (no lock). Every response reports its full ADDITIONAL LENGTH and is truncated to
 * the ALLOCATION LENGTH (CDB bytes 7..8).
 */
public final class PersistentReserveIn {
    private PersistentReserveIn() {}

    /** REPORT CAPABILITIES byte 2: CRH(4) ATP_C(2) PTPL_C(0); byte 3: TMV(7), ALLOW COMMANDS 001b (6..4). */
    static final int CAPABILITIES_BYTE2 = 0x10 | 0x04 | 0x01;
    static final int CAPABILITIES_BYTE3 = 0x80 | 0x10;

    public static int execute(Command cmd) {
        PrState s = cmd.device().reservations().stateForRead();
        if (s == null) {
            return cmd.fail(SenseReason.BUSY); // shared state unreachable: see SharedReservations
        }
        return switch (cmd.cdb()[1] & 0x1F) {
            case ServiceAction.PRIN_READ_KEYS -> readKeys(cmd, s);
            case ServiceAction.PRIN_READ_RESERVATION -> readReservation(cmd, s);
            case ServiceAction.PRIN_REPORT_CAPABILITIES -> reportCapabilities(cmd, s);
            case ServiceAction.PRIN_READ_FULL_STATUS -> readFullStatus(cmd, s);
            default -> cmd.failCdbField(1, 4);
        };
    }

    /** SPC-4 §6.15.2: PRgeneration, ADDITIONAL LENGTH, then one 8-byte key per registered I_T nexus. */
    private static int readKeys(Command cmd, PrState s) {
        List<Registration> regs = s.registrations();
        int len = 8 + 8 * regs.size();
        byte[] d = cmd.scratch(len);
        BigEndian.put32(d, 0, s.generation() & 0xFFFF_FFFFL);
        BigEndian.put32(d, 4, 8L * regs.size());
        for (int i = 0; i < regs.size(); i++) {
            BigEndian.put64(d, 8 + 8 * i, regs.get(i).key());
        }
        return cmd.respond(d, len);
    }

    /** SPC-4 §6.15.3: the reservation key (0 for all-registrants types), scope and type. */
    private static int readReservation(Command cmd, PrState s) {
        int len = s.reserved() ? 24 : 8;
        byte[] d = cmd.scratch(len);
        BigEndian.put32(d, 0, s.generation() & 0xFFFF_FFFFL);
        BigEndian.put32(d, 4, len - 8);
        if (s.reserved()) {
            BigEndian.put64(d, 8, s.holder() == null ? 0 : s.holder().key());
            d[21] = (byte) (PrType.LU_SCOPE << 4 | s.type());
        }
        return cmd.respond(d, len);
    }

    /** SPC-4 §6.15.4. */
    private static int reportCapabilities(Command cmd, PrState s) {
        byte[] d = cmd.scratch(8);
        BigEndian.put16(d, 0, 8);
        d[2] = (byte) CAPABILITIES_BYTE2;
        d[3] = (byte) (CAPABILITIES_BYTE3 | (s.aptpl() ? 0x01 : 0)); // PTPL_A
        BigEndian.put16(d, 4, PrType.TYPE_MASK);
        return cmd.respond(d, 8);
    }

    /**
     * SPC-4 §6.15.5: one full status descriptor per registered I_T nexus: key, ALL_TG_PT / R_HOLDER, scope and
     * type when holding, relative target port identifier, and the initiator's TransportID. A registration made
     * with ALL_TG_PT registers the initiator port through every target port of the LU; with several gateways
     * (shared reservations) that is one descriptor per target port any gateway advertised, each with its
     * relative target port identifier and ALL_TG_PT set, so that every gateway answers alike and a host sees the
     * nexus of each path. Otherwise the one descriptor names the port the registration arrived on.
     */
    private static int readFullStatus(Command cmd, PrState s) {
        List<Registration> regs = s.registrations();
        SharedReservations sh = cmd.device() == null ? null : cmd.device().reservations().shared();
        SortedSet<Integer> ports = sh == null ? new TreeSet<>() : sh.relativePortIds();
        int len = 8;
        for (Registration r : regs) {
            len += (24 + TransportIds.length(r.initiatorPortName())) * rtpis(r, ports).size();
        }
        byte[] d = cmd.scratch(len);
        BigEndian.put32(d, 0, s.generation() & 0xFFFF_FFFFL);
        BigEndian.put32(d, 4, len - 8);
        int p = 8;
        for (Registration r : regs) {
            boolean holder = s.isHolder(r);
            for (int rtpi : rtpis(r, ports)) {
                BigEndian.put64(d, p, r.key());
                d[p + 12] = (byte) ((r.allTargetPorts() ? 0x02 : 0) | (holder ? 0x01 : 0));
                if (holder) {
                    d[p + 13] = (byte) (PrType.LU_SCOPE << 4 | s.type());
                }
                BigEndian.put16(d, p + 18, rtpi);
                int tid = TransportIds.write(d, p + 24, r.initiatorPortName());
                BigEndian.put32(d, p + 20, tid);
                p += 24 + tid;
            }
        }
        return cmd.respond(d, len);
    }

    /** The relative target port ids a registration's descriptors name (see {@link #readFullStatus}). */
    private static SortedSet<Integer> rtpis(Registration r, SortedSet<Integer> ports) {
        SortedSet<Integer> out = new TreeSet<>();
        out.add(r.relativeTargetPortId());
        if (r.allTargetPorts()) {
            out.addAll(ports);
        }
        return out;
    }
}
