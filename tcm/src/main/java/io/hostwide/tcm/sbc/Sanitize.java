package io.hostwide.tcm.sbc;

import io.hostwide.scsi.spec.BigEndian;
import io.hostwide.scsi.spec.ServiceAction;
import io.hostwide.tcm.dispatch.Command;
import io.hostwide.tcm.dispatch.CommandDescriptor;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.spi.SenseReason;

/**
 * SANITIZE (SBC-4 §5.30): checks the CDB and parameter list, then starts a {@link SanitizeOperation} in the
 * background. IMMED = 1 returns GOOD at once; IMMED = 0 completes when the operation does. OVERWRITE writes the
 * initialization pattern (optionally inverted between passes) OVERWRITE COUNT times; BLOCK ERASE and CRYPTOGRAPHIC
 * ERASE deallocate every block (thin) or zero it; EXIT FAILURE MODE leaves the failure mode a failed sanitize
 * left the LU in. Parameter list length
 * errors are INVALID FIELD IN CDB, as the standard specifies.
 */
final class Sanitize {
    private Sanitize() {}

    static final int IMMED = 0x80;
    static final int PARAMETER_LIST_LENGTH = 7;

    static int execute(Command cmd) {
        byte[] cdb = cmd.cdb();
        Device dev = cmd.device();
        if (!dev.attributes().emulateSanitize()) {
            return cmd.fail(SenseReason.INVALID_COMMAND_OPERATION_CODE);
        }
        int sa = cdb[1] & 0x1F;
        boolean immed = (cdb[1] & IMMED) != 0;
        int paramLen = BigEndian.u16(cdb, PARAMETER_LIST_LENGTH);
        if (sa == ServiceAction.SANITIZE_OVERWRITE) {
            return overwrite(cmd, dev, paramLen, immed);
        }
        if (paramLen != 0) {
            return cmd.failCdbField(PARAMETER_LIST_LENGTH, -1);
        }
        if (sa == ServiceAction.SANITIZE_EXIT_FAILURE_MODE) {
            dev.sanitizeFailed(false); // SBC-4 §5.30.2.5: leave failure mode without a completed sanitize
            return CommandDescriptor.DONE;
        }
        return SanitizeOperation.erase(cmd).start(cmd, immed);
    }

    /** Parameter list (§5.30.2.2): INVERT(7) TEST(6..5) OVERWRITE COUNT(4..0), reserved, pattern length (2), pattern. */
    private static int overwrite(Command cmd, Device dev, int paramLen, boolean immed) {
        int bs = dev.blockSize();
        if (paramLen < 5 || paramLen > bs + 4) {
            return cmd.failCdbField(PARAMETER_LIST_LENGTH, -1);
        }
        int b0 = cmd.outU8(0);
        int count = b0 & 0x1F;
        int patternLen = cmd.outU16(2);
        if (count == 0) {
            return cmd.failParameterField(0, 4);
        }
        if ((b0 & 0x60) != 0) {
            return cmd.failParameterField(0, 6); // TEST must be 00b outside of vendor test modes
        }
        if (patternLen == 0 || patternLen > bs || patternLen + 4 > paramLen) {
            return cmd.failCdbField(PARAMETER_LIST_LENGTH, -1);
        }
        byte[] block = new byte[bs];
        for (int i = 0; i < bs; i++) {
            block[i] = (byte) cmd.outU8(4 + i % patternLen);
        }
        return SanitizeOperation.overwrite(cmd, block, count, (b0 & 0x80) != 0).start(cmd, immed);
    }
}
