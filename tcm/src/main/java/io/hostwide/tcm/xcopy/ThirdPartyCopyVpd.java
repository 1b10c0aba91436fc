package io.hostwide.tcm.xcopy;

import io.hostwide.scsi.spec.BigEndian;
import io.hostwide.scsi.spec.ScsiOpcode;
import io.hostwide.scsi.spec.ServiceAction;

/**
 * The Third-party Copy VPD page (SPC-4 §7.8.17, page 8Fh) with one Supported Commands descriptor (type 0001h):
 * EXTENDED COPY (LID1) and RECEIVE COPY RESULTS with the service actions this copy manager implements.
 * <pre>
 * descriptor: 0..1 TYPE 0001h  2..3 LENGTH  4 COMMANDS SUPPORTED LIST LENGTH
 *             then per command: OPERATION CODE, SERVICE ACTIONS LIST LENGTH, service actions; padded to 4
 * </pre>
 */
final class ThirdPartyCopyVpd {
    private ThirdPartyCopyVpd() {}

    static final int PAGE = 0x8F;

    /** Writes the page body after the 4-byte VPD header at {@code d[4..]}; returns the total page length. */
    static int write(byte[] d) {
        int p = 4;
        BigEndian.put16(d, p, 0x0001);
        int list = p + 5;
        int q = list;
        d[q++] = (byte) ScsiOpcode.EXTENDED_COPY;
        d[q++] = 1;
        d[q++] = (byte) ServiceAction.XCOPY_LID1;
        d[q++] = (byte) ScsiOpcode.RECEIVE_COPY_RESULTS;
        d[q++] = 3;
        d[q++] = (byte) ServiceAction.RCR_COPY_STATUS;
        d[q++] = (byte) ServiceAction.RCR_OPERATING_PARAMETERS;
        d[q++] = (byte) ServiceAction.RCR_FAILED_SEGMENT_DETAILS;
        d[p + 4] = (byte) (q - list);
        int descLength = (q - p + 3) & ~3; // descriptors are a multiple of four bytes
        BigEndian.put16(d, p + 2, descLength - 4);
        return p + descLength;
    }
}
