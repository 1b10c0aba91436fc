package io.hostwide.tcm.sbc;

import io.hostwide.scsi.spec.BigEndian;
import io.hostwide.tcm.dispatch.Command;
import io.hostwide.tcm.lu.Device;

/** READ CAPACITY(10) and READ CAPACITY(16) (SBC-4 §5.21, §5.22). */
final class ReadCapacity {
    private ReadCapacity() {}

    static int capacity10(Command cmd) {
        Device dev = cmd.device();
        byte[] d = cmd.scratch(8);
        long last = dev.blockCount() - 1;
        BigEndian.put32(d, 0, Math.min(last, 0xFFFF_FFFFL)); // FFFFFFFFh: use READ CAPACITY(16)
        BigEndian.put32(d, 4, dev.blockSize());
        return cmd.respond(d, 8);
    }

    static int capacity16(Command cmd) {
        Device dev = cmd.device();
        byte[] d = cmd.scratch(32);
        BigEndian.put64(d, 0, dev.blockCount() - 1);
        BigEndian.put32(d, 8, dev.blockSize());
        // SBC-4 §5.22.2: byte 13 bits 3..0 LOGICAL BLOCKS PER PHYSICAL BLOCK EXPONENT; LOWEST ALIGNED LOGICAL BLOCK
        // ADDRESS (byte 14 bits 5..0, byte 15) stays 0: LBA 0 starts a physical block
        d[13] = (byte) (dev.attributes().logicalBlocksPerPhysicalBlockExponent() & 0x0F);
        if (dev.thinProvisioned()) {
            d[14] = (byte) (0x80 | (dev.backstore().unmapReturnsZeros() ? 0x40 : 0)); // LBPME | LBPRZ
        }
        return cmd.respond(d, 32);
    }
}
