package io.hostwide.tcm.spc;

import io.hostwide.scsi.spec.BigEndian;
import io.hostwide.tcm.dispatch.Command;
import io.hostwide.tcm.dispatch.CommandDescriptor;
import io.hostwide.tcm.dispatch.CommandTable;

import java.util.List;

/**
 * REPORT SUPPORTED OPERATION CODES (SPC-4 §6.35), straight from the device's command table. REPORTING OPTIONS:
 * 000b all commands; 001b one opcode (INVALID FIELD IN CDB if it has service actions); 010b opcode + service
 * action (INVALID FIELD IN CDB if it has none); 011b opcode + service action where the opcode may have none.
 * RCTD adds the command timeouts descriptor (§6.35.4) to each entry.
 */
public final class ReportSupportedOperationCodes {
    private ReportSupportedOperationCodes() {}

    static final int TIMEOUTS_DESCRIPTOR_LENGTH = 12;

    public static int execute(Command cmd) {
        byte[] cdb = cmd.cdb();
        boolean rctd = (cdb[2] & 0x80) != 0;
        int options = cdb[2] & 0x07;
        int opcode = cdb[3] & 0xFF;
        int sa = BigEndian.u16(cdb, 4);
        CommandTable table = cmd.commandTable();
        return switch (options) {
            case 0 -> all(cmd, table, rctd);
            case 1 -> table.hasServiceActions(opcode) ? cmd.failCdbField(2, 2) : one(cmd, table.find(opcode, -1), rctd);
            case 2 -> !table.hasServiceActions(opcode) ? cmd.failCdbField(2, 2) : one(cmd, table.find(opcode, sa), rctd);
            case 3 -> one(cmd, table.hasServiceActions(opcode) ? table.find(opcode, sa) : table.find(opcode, -1), rctd);
            default -> cmd.failCdbField(2, 2);
        };
    }

    private static int all(Command cmd, CommandTable table, boolean rctd) {
        List<CommandDescriptor> rows = table.all();
        int each = 8 + (rctd ? TIMEOUTS_DESCRIPTOR_LENGTH : 0);
        int len = 4 + rows.size() * each;
        byte[] d = cmd.scratch(len);
        BigEndian.put32(d, 0, len - 4);
        int p = 4;
        for (CommandDescriptor r : rows) {
            d[p] = (byte) r.opcode();
            if (r.hasServiceAction()) {
                BigEndian.put16(d, p + 2, r.serviceAction());
            }
            d[p + 5] = (byte) ((rctd ? 0x02 : 0) | (r.hasServiceAction() ? 0x01 : 0)); // CTDP | SERVACTV
            BigEndian.put16(d, p + 6, r.cdbLength());
            if (rctd) {
                timeouts(d, p + 8, r);
            }
            p += each;
        }
        return cmd.respond(d, len);
    }

    private static int one(Command cmd, CommandDescriptor r, boolean rctd) {
        if (r == null) {
            byte[] d = cmd.scratch(4);
            d[1] = 0x01; // SUPPORT 001b: not supported
            return cmd.respond(d, 4);
        }
        int len = 4 + r.cdbLength() + (rctd ? TIMEOUTS_DESCRIPTOR_LENGTH : 0);
        byte[] d = cmd.scratch(len);
        d[1] = (byte) ((rctd ? 0x80 : 0) | 0x03); // CTDP | SUPPORT 011b: supported as the standard says
        BigEndian.put16(d, 2, r.cdbLength());
        System.arraycopy(r.usage(), 0, d, 4, r.cdbLength());
        if (rctd) {
            timeouts(d, 4 + r.cdbLength(), r);
        }
        return cmd.respond(d, len);
    }

    private static void timeouts(byte[] d, int p, CommandDescriptor r) {
        BigEndian.put16(d, p, TIMEOUTS_DESCRIPTOR_LENGTH - 2);
        BigEndian.put32(d, p + 4, r.nominalTimeout());
        BigEndian.put32(d, p + 8, r.recommendedTimeout());
    }
}
