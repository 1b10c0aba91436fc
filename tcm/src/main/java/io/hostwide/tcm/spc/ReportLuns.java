package io.hostwide.tcm.spc;

import io.hostwide.scsi.spec.Asc;
import io.hostwide.scsi.spec.BigEndian;
import io.hostwide.scsi.spec.LunAddress;
import io.hostwide.tcm.dispatch.Command;
import io.hostwide.tcm.lu.ItNexus;
import io.hostwide.tcm.lu.SessionLun;

/**
 * REPORT LUNS (SPC-4 §6.33): the LUN inventory of this I_T nexus. SELECT REPORT 00h = logical units, 01h =
 * well-known LUs (REPORT LUNS W-LUN), 02h = both, 10h/11h/12h = administrative LUs and their subsidiaries (none
 * exist here: empty lists). Clears REPORTED LUNS DATA HAS CHANGED for the nexus on every LUN.
 */
public final class ReportLuns {
    private ReportLuns() {}

    public static int execute(Command cmd) {
        int select = cmd.cdb()[2] & 0xFF;
        boolean lus;
        boolean wlus;
        switch (select) {
            case 0x00 -> { lus = true; wlus = false; }
            case 0x01 -> { lus = false; wlus = true; }
            case 0x02 -> { lus = true; wlus = true; }
            case 0x10, 0x11, 0x12 -> { lus = false; wlus = false; }
            default -> { return cmd.failCdbField(2, 7); }
        }
        ItNexus s = cmd.nexus();
        int[] numbers = lus ? s.mappedLunNumbers() : new int[0];
        int count = numbers.length + (wlus ? 1 : 0);
        int len = 8 + 8 * count;
        byte[] d = cmd.scratch(len);
        BigEndian.put32(d, 0, 8L * count);
        int p = 8;
        for (int n : numbers) {
            BigEndian.put64(d, p, LunAddress.encode(n));
            p += 8;
        }
        if (wlus) {
            BigEndian.put64(d, p, LunAddress.encodeWellKnown(LunAddress.WLUN_REPORT_LUNS));
        }
        for (SessionLun l : s.sessionLuns()) {
            l.unitAttentions().remove(Asc.REPORTED_LUNS_DATA_HAS_CHANGED);
        }
        return cmd.respond(d, len);
    }
}
