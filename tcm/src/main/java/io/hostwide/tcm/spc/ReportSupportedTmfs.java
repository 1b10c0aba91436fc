package io.hostwide.tcm.spc;

import io.hostwide.tcm.dispatch.Command;

/**
 * REPORT SUPPORTED TASK MANAGEMENT FUNCTIONS (SPC-4 §6.36): what the installed task management layer declared
 * through the core ({@link Command#supportedTaskManagement()}; nothing until one is installed).
 * Byte 0: ATS(7) ATSS(6) CACAS(5) CTSS(4) LURS(3) QTS(2) TRS(1) WAKES(0); byte 1: QUAS(2) QTSS(1) ITNRS(0);
 * with REPD, 16 bytes (byte 3 ADDITIONAL DATA LENGTH 0Ch), else 4.
 */
public final class ReportSupportedTmfs {
    private ReportSupportedTmfs() {}

    public static int execute(Command cmd) {
        boolean repd = (cmd.cdb()[2] & 0x80) != 0;
        int len = repd ? 16 : 4;
        byte[] d = cmd.scratch(len);
        int bits = cmd.supportedTaskManagement();
        d[0] = (byte) (bits >>> 8);
        d[1] = (byte) bits;
        if (repd) {
            d[3] = 0x0C;
        }
        return cmd.respond(d, len);
    }
}
