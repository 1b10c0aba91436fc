package io.hostwide.tcm.sbc;

import io.hostwide.tcm.dispatch.Command;
import io.hostwide.tcm.dispatch.CommandDescriptor;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.lu.DeviceAttributes;
import io.hostwide.tcm.lu.RangeLock;
import io.hostwide.tcm.spi.SenseReason;
import io.hostwide.tcm.spi.DataPathErrors;

import java.io.IOException;

/**
 * UNMAP (SBC-4 §5.31). Parameter list: 8-byte header (UNMAP DATA LENGTH, UNMAP BLOCK DESCRIPTOR DATA LENGTH),
 * then 16-byte descriptors (LBA, NUMBER OF LOGICAL BLOCKS). Every descriptor is checked before any block is
 * deallocated, so a rejected command changes nothing.
 */
final class Unmap {
    private Unmap() {}

    static final int HEADER = 8;
    static final int DESCRIPTOR = 16;

    static int execute(Command cmd) {
        Device dev = cmd.device();
        if (!dev.thinProvisioned()) {
            return cmd.fail(SenseReason.INVALID_COMMAND_OPERATION_CODE); // LBPU = 0: UNMAP is not supported
        }
        if ((cmd.cdb()[1] & 0x01) != 0) {
            return cmd.failCdbField(1, 0); // ANCHOR without ANC_SUP
        }
        int len = cmd.dataOutLength();
        if (len == 0) {
            return CommandDescriptor.DONE;
        }
        if (len < HEADER) {
            return cmd.fail(SenseReason.PARAMETER_LIST_LENGTH_ERROR);
        }
        int descLen = cmd.outU16(2);
        if (descLen > len - HEADER || cmd.outU16(0) > len - 2) {
            return cmd.fail(SenseReason.PARAMETER_LIST_LENGTH_ERROR);
        }
        int count = descLen / DESCRIPTOR;
        DeviceAttributes a = dev.attributes();
        if (count > a.maxUnmapBlockDescriptorCount()) {
            return cmd.failParameterField(2, -1);
        }
        for (int i = 0; i < count; i++) {
            int p = HEADER + i * DESCRIPTOR;
            long lba = cmd.outS64(p);
            long n = cmd.outU32(p + 8);
            if (n > a.maxUnmapLbaCount()) {
                return cmd.failParameterField(p + 8, -1);
            }
            if (!BlockCdb.inRange(cmd, lba, n)) {
                return CommandDescriptor.DONE;
            }
        }
        try {
            for (int i = 0; i < count; i++) {
                int p = HEADER + i * DESCRIPTOR;
                long lba = cmd.outS64(p);
                long n = cmd.outU32(p + 8);
                if (n == 0) {
                    continue;
                }
                long mask = RangeLock.mask(lba, n);
                long[] stamps = RangeLock.stamps();
                dev.rangeLock().lockShared(mask, stamps);
                try {
                    Deallocate.range(dev.backstore(), a, lba, n);
                } finally {
                    dev.rangeLock().unlockShared(mask, stamps);
                }
            }
            if (!dev.modePages().writeCacheEnabled()) {
                dev.backstore().flush();
            }
        } catch (IOException e) {
            DataPathErrors.LOG.report(dev.name(), "UNMAP", -1, -1, e);
            return cmd.fail(SenseReason.WRITE_ERROR);
        }
        return CommandDescriptor.DONE;
    }
}
