package io.hostwide.tcm.xcopy;

/**
 * EXTENDED COPY (LID1) layouts and this copy manager's limits (SPC-4 §6.4, §6.18.4).
 * <pre>
 * parameter list header (16):  0 LIST IDENTIFIER  1 STR(5) LIST ID USAGE(4..3) PRIORITY(2..0)
 *                              2..3 TARGET DESCRIPTOR LIST LENGTH  8..11 SEGMENT DESCRIPTOR LIST LENGTH
 *                              12..15 INLINE DATA LENGTH
 * identification descriptor target descriptor E4h (32):  0 E4h  1 LU ID TYPE(7..6) NUL(5) DEVICE TYPE(4..0)
 *     2..3 RELATIVE INITIATOR PORT  4..23 designation descriptor (code set, association/type, length, value)
 *     28 PAD(2)  29..31 DISK BLOCK LENGTH
 * block to block segment descriptor 02h (28):  0 02h  1 DC(1) CAT(0)  2..3 DESCRIPTOR LENGTH (0018h)
 *     4..5 SOURCE INDEX  6..7 DESTINATION INDEX  10..11 BLOCK DEVICE NUMBER OF BLOCKS
 *     12..19 SOURCE LBA  20..27 DESTINATION LBA
 * block to block with offset segment descriptor 0Ah (32): as 02h but 8..11 NUMBER OF BYTES, 28..29 SOURCE BYTE
 *     OFFSET, 30..31 DESTINATION BYTE OFFSET (this copy manager: offsets 0, whole blocks)
 * </pre>
 */
final class XcopySpec {
    private XcopySpec() {}

    static final int HEADER_LENGTH = 16;
    static final int TARGET_DESCRIPTOR_LENGTH = 32;
    static final int B2B_SEGMENT_LENGTH = 28;

    static final int TARGET_IDENTIFICATION = 0xE4;
    static final int SEGMENT_BLOCK_TO_BLOCK = 0x02;
    /** Block to block with byte offsets (SPC-4 §6.4.5.7): 8..11 NUMBER OF BYTES, 28..29 / 30..31 byte offsets. */
    static final int SEGMENT_BLOCK_TO_BLOCK_OFFSET = 0x0A;
    static final int B2B_OFFSET_SEGMENT_LENGTH = 32;

    static final int LIST_ID_USAGE_HOLD = 0;
    static final int LIST_ID_USAGE_NO_HOLD = 2;
    static final int LIST_ID_USAGE_NONE = 3;

    static final int MAX_TARGET_DESCRIPTORS = 16;
    static final int MAX_SEGMENT_DESCRIPTORS = 16;
    static final int MAX_DESCRIPTOR_LIST_LENGTH = 1024;
    static final int MAX_CONCURRENT_COPIES = 16;

    /** Designation descriptor types a copy target can be named by (SPC-4 §7.8.6): NAA. */
    static final int DESIGNATOR_NAA = 0x3;
}
