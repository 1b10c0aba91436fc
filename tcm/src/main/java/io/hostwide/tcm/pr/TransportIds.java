package io.hostwide.tcm.pr;

import io.hostwide.tcm.dispatch.Command;

import java.nio.charset.StandardCharsets;

/**
 * iSCSI TransportIDs (SPC-4 §7.6.4.6, Table 508/509). Byte 0: FORMAT CODE (7..6) and PROTOCOL IDENTIFIER (3..0,
 * 5 = iSCSI); bytes 2..3 ADDITIONAL LENGTH (a multiple of 4, at least 20); then a NUL-terminated UTF-8 string:
 * the iSCSI name (format 00b) or the initiator port name "name,i,0x" + ISID (format 01b).
 */
final class TransportIds {
    private TransportIds() {}

    static final int PROTOCOL_ISCSI = 5;
    static final int FORMAT_PORT = 0x40;

    /** Length of the format-01b TransportID of {@code initiatorPortName}. */
    static int length(String initiatorPortName) {
        int n = initiatorPortName.getBytes(StandardCharsets.UTF_8).length + 1;
        return 4 + Math.max(20, (n + 3) & ~3);
    }

    /** Writes the format-01b TransportID at {@code off}; returns its length. */
    static int write(byte[] d, int off, String initiatorPortName) {
        byte[] n = initiatorPortName.getBytes(StandardCharsets.UTF_8);
        int len = length(initiatorPortName);
        d[off] = (byte) (FORMAT_PORT | PROTOCOL_ISCSI);
        d[off + 2] = (byte) ((len - 4) >>> 8);
        d[off + 3] = (byte) (len - 4);
        System.arraycopy(n, 0, d, off + 4, n.length);
        return len;
    }

    /** The initiator port name in a format-01b iSCSI TransportID of the parameter data, or null when invalid. */
    static String iscsiInitiatorPort(Command cmd, int off, int len) {
        if (len < 24 || (cmd.outU8(off) & 0x0F) != PROTOCOL_ISCSI || (cmd.outU8(off) & 0xC0) != FORMAT_PORT) {
            return null;
        }
        int add = cmd.outU16(off + 2);
        if (add + 4 > len) {
            return null;
        }
        byte[] b = new byte[add];
        cmd.copyDataOut(off + 4, b, 0, add);
        int end = 0;
        while (end < add && b[end] != 0) {
            end++;
        }
        if (end == add || end == 0) {
            return null; // not NUL terminated
        }
        String s = new String(b, 0, end, StandardCharsets.UTF_8);
        return s.contains(",i,0x") ? s : null;
    }
}
