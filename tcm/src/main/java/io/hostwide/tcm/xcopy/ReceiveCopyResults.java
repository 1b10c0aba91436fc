package io.hostwide.tcm.xcopy;

import io.hostwide.scsi.spec.BigEndian;
import io.hostwide.scsi.spec.ServiceAction;
import io.hostwide.tcm.dispatch.Command;
import io.hostwide.tcm.lu.CopyResults;
import io.hostwide.tcm.lu.Device;

/**
 * RECEIVE COPY RESULTS (SPC-4 §6.18) for LID1: COPY STATUS and FAILED SEGMENT DETAILS of the EXTENDED COPY with
 * the CDB's LIST IDENTIFIER from the same I_T nexus (unknown → INVALID FIELD IN CDB), and OPERATING PARAMETERS.
 * RECEIVE DATA is not supported (HELD DATA LIMIT 0): INVALID FIELD IN CDB through the table.
 */
public final class ReceiveCopyResults {
    private ReceiveCopyResults() {}

    public static int execute(Command cmd) {
        return switch (cmd.cdb()[1] & 0x1F) {
            case ServiceAction.RCR_OPERATING_PARAMETERS -> operatingParameters(cmd);
            case ServiceAction.RCR_COPY_STATUS -> copyStatus(cmd);
            case ServiceAction.RCR_FAILED_SEGMENT_DETAILS -> failedSegmentDetails(cmd);
            default -> cmd.failCdbField(1, 4);
        };
    }

    private static CopyResults.Result lookup(Command cmd) {
        int listId = cmd.cdb()[2] & 0xFF;
        return cmd.device().copyResults().get(CopyResults.key(cmd.nexus().id(), listId));
    }

    /** SPC-4 §6.18.2: COPY MANAGER STATUS, SEGMENTS PROCESSED, TRANSFER COUNT (units: 00h bytes, 01h KiB). */
    private static int copyStatus(Command cmd) {
        CopyResults.Result r = lookup(cmd);
        if (r == null) {
            return cmd.failCdbField(2, 7);
        }
        byte[] d = cmd.scratch(12);
        BigEndian.put32(d, 0, 8);
        d[4] = (byte) r.status();
        BigEndian.put16(d, 5, r.segmentsProcessed());
        long count = r.bytesTransferred();
        if (count > 0xFFFF_FFFFL) {
            d[7] = 0x01;
            count >>>= 10;
        }
        BigEndian.put32(d, 8, count);
        return cmd.respond(d, 12);
    }

    /** SPC-4 §6.18.5: the EXTENDED COPY's status and sense data (none when it completed GOOD). */
    private static int failedSegmentDetails(Command cmd) {
        CopyResults.Result r = lookup(cmd);
        if (r == null || r.status() == 0) {
            return cmd.failCdbField(2, 7);
        }
        int len = 60 + r.sense().length;
        byte[] d = cmd.scratch(len);
        BigEndian.put32(d, 0, len - 4);
        d[56] = (byte) r.commandStatus();
        BigEndian.put16(d, 58, r.sense().length);
        System.arraycopy(r.sense(), 0, d, 60, r.sense().length);
        return cmd.respond(d, len);
    }

    /** SPC-4 §6.18.4: the copy manager's limits and the descriptor type codes it implements. */
    private static int operatingParameters(Command cmd) {
        Device dev = cmd.device();
        int[] codes = {XcopySpec.SEGMENT_BLOCK_TO_BLOCK, XcopySpec.SEGMENT_BLOCK_TO_BLOCK_OFFSET,
                XcopySpec.TARGET_IDENTIFICATION};
        int len = 44 + codes.length;
        byte[] d = cmd.scratch(len);
        BigEndian.put32(d, 0, len - 4);
        d[4] = 0x01; // SNLID: LIST ID USAGE 11b (no list identifier) is supported
        BigEndian.put16(d, 8, XcopySpec.MAX_TARGET_DESCRIPTORS);
        BigEndian.put16(d, 10, XcopySpec.MAX_SEGMENT_DESCRIPTORS);
        BigEndian.put32(d, 12, XcopySpec.MAX_DESCRIPTOR_LIST_LENGTH);
        BigEndian.put32(d, 16, 0xFFFFL * dev.blockSize()); // NUMBER OF BLOCKS is 16 bits in a 02h descriptor
        BigEndian.put16(d, 34, XcopySpec.MAX_CONCURRENT_COPIES);
        d[36] = (byte) XcopySpec.MAX_CONCURRENT_COPIES;
        d[37] = (byte) (31 - Integer.numberOfLeadingZeros(dev.blockSize())); // DATA SEGMENT GRANULARITY, log2
        d[43] = (byte) codes.length;
        for (int i = 0; i < codes.length; i++) {
            d[44 + i] = (byte) codes[i];
        }
        return cmd.respond(d, len);
    }
}
