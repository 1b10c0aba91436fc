package io.hostwide.tcm.sbc;

import io.hostwide.scsi.spec.BigEndian;
import io.hostwide.tcm.dispatch.Command;
import io.hostwide.tcm.dispatch.CommandDescriptor;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.spi.SenseReason;
import io.hostwide.tcm.spi.DataPathErrors;

import java.io.IOException;

/**
 * START STOP UNIT (SBC-4 §5.25), PREVENT ALLOW MEDIUM REMOVAL (§5.11) and READ DEFECT DATA 10/12 (§5.19/5.20).
 * The emulated unit is always spun up: START without LOEJ changes nothing a later command could observe, and a
 * non-zero POWER CONDITION makes START and LOEJ ignored. LOEJ loads/ejects a removable medium, refused while any
 * I_T nexus prevents removal.
 */
final class Medium {
    private Medium() {}

    static final int START = 0x01;
    static final int LOEJ = 0x02;
    static final int NO_FLUSH = 0x04;

    static int startStopUnit(Command cmd) {
        byte[] cdb = cmd.cdb();
        Device dev = cmd.device();
        int powerCondition = (cdb[4] & 0xF0) >>> 4;
        if (powerCondition != 0) {
            return CommandDescriptor.DONE;
        }
        boolean start = (cdb[4] & START) != 0;
        if ((cdb[4] & LOEJ) == 0) {
            if (!start && (cdb[4] & NO_FLUSH) == 0) {
                try {
                    dev.backstore().flush(); // SBC-4 §5.25: stopping writes the cache back unless NO_FLUSH
                } catch (IOException e) {
                    DataPathErrors.LOG.report(dev.name(), "START STOP UNIT flush", -1, -1, e);
                    return cmd.fail(SenseReason.WRITE_ERROR);
                }
            }
            return CommandDescriptor.DONE;
        }
        if (!dev.attributes().removable()) {
            return cmd.failCdbField(4, 1);
        }
        if (dev.mediumRemovalPrevented()) {
            return cmd.fail(SenseReason.MEDIUM_REMOVAL_PREVENTED);
        }
        if (!start) {
            try {
                dev.backstore().flush();
            } catch (IOException e) {
                DataPathErrors.LOG.report(dev.name(), "START STOP UNIT flush", -1, -1, e);
                return cmd.fail(SenseReason.WRITE_ERROR);
            }
        }
        dev.mediumLoaded(start);
        return CommandDescriptor.DONE;
    }

    /** PREVENT field 00b allow, 01b prevent (per I_T nexus); 1xb are MMC persistent-prevent forms. */
    static int preventAllow(Command cmd) {
        int prevent = cmd.cdb()[4] & 0x03;
        if (prevent > 1) {
            return cmd.failCdbField(4, 1);
        }
        cmd.sessionLun().preventMediumRemoval(prevent == 1);
        return CommandDescriptor.DONE;
    }

    /** An empty defect list in the format asked for (the medium has no defects). */
    static int readDefectData10(Command cmd) {
        byte[] d = cmd.scratch(4);
        d[1] = (byte) (cmd.cdb()[2] & 0x1F); // REQ_PLIST | REQ_GLIST | DEFECT LIST FORMAT echoed
        return cmd.respond(d, 4);
    }

    static int readDefectData12(Command cmd) {
        byte[] d = cmd.scratch(8);
        d[1] = (byte) (cmd.cdb()[1] & 0x1F);
        BigEndian.put32(d, 4, 0);
        return cmd.respond(d, 8);
    }
}
