package io.hostwide.target.sbc;

import io.hostwide.scsi.spec.BigEndian;
import io.hostwide.scsi.spec.ServiceAction;
import io.hostwide.target.SenseReason;
import io.hostwide.target.TargetCommand;
import io.hostwide.target.core.CommandDescriptor;
import io.hostwide.target.core.RangeLock;
import io.hostwide.target.model.Device;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * SANITIZE (SBC-4 §5.30), run to completion before status even with IMMED (no sanitize-in-progress window).
 * OVERWRITE writes the initialization pattern (optionally inverted between passes) OVERWRITE COUNT times;
 * BLOCK ERASE and CRYPTOGRAPHIC ERASE deallocate every block (thin) or zero it; EXIT FAILURE MODE has nothing to
 * leave. Parameter list length errors are INVALID FIELD IN CDB, as the standard specifies.
 */
final class Sanitize {
    private Sanitize() {}

    static final int PARAMETER_LIST_LENGTH = 7;

    static int execute(TargetCommand cmd) {
        byte[] cdb = cmd.cdb();
        Device dev = cmd.device();
        if (!dev.attributes().emulateSanitize()) {
            return cmd.fail(SenseReason.INVALID_COMMAND_OPERATION_CODE);
        }
        int sa = cdb[1] & 0x1F;
        int paramLen = BigEndian.u16(cdb, PARAMETER_LIST_LENGTH);
        if (sa != ServiceAction.SANITIZE_OVERWRITE) {
            if (paramLen != 0) {
                return cmd.failCdbField(PARAMETER_LIST_LENGTH, -1);
            }
            if (sa == ServiceAction.SANITIZE_EXIT_FAILURE_MODE) {
                return CommandDescriptor.DONE;
            }
        }
        long mask = -1L;
        long[] stamps = RangeLock.stamps();
        dev.rangeLock().lockExclusive(mask, stamps);
        try {
            if (sa == ServiceAction.SANITIZE_OVERWRITE) {
                return overwrite(cmd, dev, paramLen);
            }
            if (dev.backstore().supportsUnmap()) {
                dev.backstore().unmap(0, dev.blockCount());
            } else {
                dev.backstore().writeZeros(0, dev.blockCount());
            }
            dev.backstore().flush();
        } catch (IOException e) {
            return cmd.fail(SenseReason.WRITE_ERROR);
        } finally {
            dev.rangeLock().unlockExclusive(mask, stamps);
        }
        return CommandDescriptor.DONE;
    }

    /** Parameter list (§5.30.2.2): INVERT(7) TEST(6..5) OVERWRITE COUNT(4..0), reserved, pattern length (2), pattern. */
    private static int overwrite(TargetCommand cmd, Device dev, int paramLen) throws IOException {
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
        boolean invert = (b0 & 0x80) != 0;
        byte[] block = new byte[bs];
        for (int i = 0; i < bs; i++) {
            block[i] = (byte) cmd.outU8(4 + i % patternLen);
        }
        int chunk = Math.max(1, (256 * 1024) / bs);
        ByteBuffer buf = ByteBuffer.allocate(chunk * bs);
        for (int pass = 0; pass < count; pass++) {
            boolean inv = invert && (pass % 2 == 1);
            buf.clear();
            for (int i = 0; i < chunk; i++) {
                for (byte b : block) {
                    buf.put((byte) (inv ? ~b : b));
                }
            }
            for (long lba = 0; lba < dev.blockCount(); lba += chunk) {
                int n = (int) Math.min(chunk, dev.blockCount() - lba);
                buf.clear().limit(n * bs);
                dev.backstore().write(lba, buf, false);
            }
        }
        dev.backstore().flush();
        return CommandDescriptor.DONE;
    }
}
