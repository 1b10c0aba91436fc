package io.hostwide.tcm.dispatch;

import io.hostwide.tcm.lu.Device;

/** The data transfer length a CDB implies, in bytes, in the command's data direction (SPDTL). */
@FunctionalInterface
public interface TransferLength {
    TransferLength NONE = (cdb, dev) -> 0;

    long bytes(byte[] cdb, Device dev);

    /** An allocation or parameter list length field of {@code size} bytes at {@code offset}. */
    static TransferLength field(int offset, int size) {
        return (cdb, dev) -> {
            long v = 0;
            for (int i = 0; i < size; i++) {
                v = v << 8 | (cdb[offset + i] & 0xFF);
            }
            return v;
        };
    }

    /** A transfer length in logical blocks at {@code offset}, of {@code size} bytes. */
    static TransferLength blocks(int offset, int size) {
        TransferLength f = field(offset, size);
        return (cdb, dev) -> f.bytes(cdb, dev) * dev.blockSize();
    }
}
