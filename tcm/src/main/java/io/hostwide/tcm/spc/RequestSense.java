package io.hostwide.tcm.spc;

import io.hostwide.scsi.spec.LunAddress;
import io.hostwide.scsi.spec.SenseKey;
import io.hostwide.tcm.dispatch.Command;
import io.hostwide.tcm.lu.BackgroundOperation;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.lu.SessionLun;
import io.hostwide.tcm.spi.Sense;
import io.hostwide.tcm.spi.SenseReason;

/**
 * REQUEST SENSE (SPC-4 §6.39): returns, with GOOD status, the sense data of a pending unit attention (removing
 * it), else a sanitize in progress (NO SENSE, 04h/1Bh, progress indication), else the current not-ready condition,
 * else NO SENSE. DESC selects descriptor format. On a LUN the nexus
 * does not have, the data is ILLEGAL REQUEST / LOGICAL UNIT NOT SUPPORTED (SPC-4 §4.3.2).
 */
public final class RequestSense {
    private RequestSense() {}

    public static int execute(Command cmd) {
        boolean desc = (cmd.cdb()[1] & 0x01) != 0;
        int alloc = cmd.cdb()[4] & 0xFF;
        byte[] d = cmd.scratch(Sense.MAX_LENGTH);
        SessionLun sl = cmd.sessionLun();
        Device dev = cmd.device();
        int len;
        if (sl == null && LunAddress.decode(cmd.lun()) == LunAddress.DECODED_WLUN_REPORT_LUNS) {
            len = Sense.noSense(d, desc); // the REPORT LUNS well-known LU has nothing to report
        } else if (sl == null) {
            len = Sense.encode(d, SenseReason.LOGICAL_UNIT_NOT_SUPPORTED, 0, desc);
        } else {
            int ua = alloc > 0 ? sl.unitAttentions().poll() : sl.unitAttentions().peek();
            BackgroundOperation op = dev.operation();
            if (ua >= 0) {
                len = Sense.encode(d, SenseReason.UNIT_ATTENTION, ua, desc);
            } else if (op != null) {
                // SPC-4 §6.39.2: NO SENSE with the operation's ASC/ASCQ and its progress indication
                len = Sense.encode(d, SenseKey.NO_SENSE, op.notReadyReason().ascAscq(),
                        Sense.progressIndication(op.progressIndication()), desc);
            } else if (!dev.mediumLoaded()) {
                len = Sense.encode(d, SenseReason.MEDIUM_NOT_PRESENT, 0, desc);
            } else {
                len = Sense.noSense(d, desc);
            }
        }
        return cmd.respond(d, len);
    }
}
