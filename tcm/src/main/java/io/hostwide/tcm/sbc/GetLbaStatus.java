package io.hostwide.tcm.sbc;

import io.hostwide.scsi.spec.BigEndian;
import io.hostwide.scsi.spec.Cdb16;
import io.hostwide.tcm.dispatch.Command;
import io.hostwide.tcm.dispatch.CommandDescriptor;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.spi.SenseReason;
import io.hostwide.tcm.spi.DataPathErrors;

import java.io.IOException;

/**
 * GET LBA STATUS (SBC-4 §5.8): from the starting LBA, descriptors of runs with one provisioning status (0 mapped
 * or unknown, 1 deallocated), as many as the allocation length holds (at least one is always computed so the
 * PARAMETER DATA LENGTH is meaningful). A starting LBA beyond the last block is LBA OUT OF RANGE.
 */
final class GetLbaStatus {
    private GetLbaStatus() {}

    static final int HEADER = 8;
    static final int DESCRIPTOR = 16;
    static final int MAX_DESCRIPTORS = 256;

    static int execute(Command cmd) {
        byte[] cdb = cmd.cdb();
        Device dev = cmd.device();
        long lba = Cdb16.lba(cdb);
        long alloc = BigEndian.u32(cdb, 10);
        long cap = dev.blockCount();
        if (Long.compareUnsigned(lba, cap) >= 0) {
            return cmd.fail(SenseReason.LBA_OUT_OF_RANGE);
        }
        int max = (int) Math.max(1, Math.min(MAX_DESCRIPTORS, (alloc - HEADER) / DESCRIPTOR));
        byte[] d = cmd.scratch(HEADER + max * DESCRIPTOR);
        int n = 0;
        long at = lba;
        try {
            while (n < max && at < cap) {
                long run = dev.backstore().provisioningRun(at, Math.min(cap - at, 0xFFFF_FFFFL));
                long len = Math.abs(run);
                int p = HEADER + n * DESCRIPTOR;
                BigEndian.put64(d, p, at);
                BigEndian.put32(d, p + 8, len);
                d[p + 12] = (byte) (run < 0 ? 1 : 0);
                at += len;
                n++;
            }
        } catch (IOException e) {
            DataPathErrors.LOG.report(dev.name(), "GET LBA STATUS", at, -1, e);
            return cmd.failWithInformation(SenseReason.ofReadFailure(e), at);
        }
        int total = HEADER + n * DESCRIPTOR;
        BigEndian.put32(d, 0, total - 4);
        cmd.respond(d, total);
        return CommandDescriptor.DONE;
    }
}
