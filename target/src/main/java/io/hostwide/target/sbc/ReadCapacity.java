package io.hostwide.target.sbc;

import io.hostwide.scsi.spec.BigEndian;
import io.hostwide.target.TargetCommand;
import io.hostwide.target.model.Device;
import io.hostwide.target.spc.SpcSupport;

/** READ CAPACITY(10) and READ CAPACITY(16) (SBC-4 §5.21, §5.22). */
final class ReadCapacity {
    private ReadCapacity() {}

    static int capacity10(TargetCommand cmd) {
        Device dev = cmd.device();
        byte[] d = cmd.scratch(8);
        long last = dev.blockCount() - 1;
        BigEndian.put32(d, 0, Math.min(last, 0xFFFF_FFFFL)); // FFFFFFFFh: use READ CAPACITY(16)
        BigEndian.put32(d, 4, dev.blockSize());
        return cmd.respond(d, 8);
    }

    static int capacity16(TargetCommand cmd) {
        Device dev = cmd.device();
        byte[] d = cmd.scratch(32);
        BigEndian.put64(d, 0, dev.blockCount() - 1);
        BigEndian.put32(d, 8, dev.blockSize());
        if (SpcSupport.thin(dev)) {
            d[14] = (byte) (0x80 | (dev.backstore().unmapReturnsZeros() ? 0x40 : 0)); // LBPME | LBPRZ
        }
        return cmd.respond(d, 32);
    }
}
