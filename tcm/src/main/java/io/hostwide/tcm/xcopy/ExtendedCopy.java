package io.hostwide.tcm.xcopy;

import io.hostwide.scsi.spec.BigEndian;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.tcm.dispatch.Command;
import io.hostwide.tcm.dispatch.CommandDescriptor;
import io.hostwide.tcm.lu.CopyResults;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.lu.PrState;
import io.hostwide.tcm.lu.SessionLun;
import io.hostwide.tcm.spi.Sense;
import io.hostwide.tcm.spi.SenseReason;

import java.util.Arrays;

import static io.hostwide.tcm.xcopy.XcopySpec.B2B_SEGMENT_LENGTH;
import static io.hostwide.tcm.xcopy.XcopySpec.HEADER_LENGTH;
import static io.hostwide.tcm.xcopy.XcopySpec.TARGET_DESCRIPTOR_LENGTH;

/**
 * EXTENDED COPY (LID1) (SPC-4 §6.4) with identification descriptor target descriptors (E4h) and block to block
 * segment descriptors (02h), copying between the logical units the requesting I_T nexus has mapped (LIO limits the
 * copy manager the same way since CVE-2020-28374). The parameter list is checked in full — header lengths,
 * descriptor counts and types, copy targets, indices and LBA ranges of every segment — before any block moves,
 * so a rejected list writes nothing; the copy then runs segment by segment through the backstores.
 */
public final class ExtendedCopy {
    private ExtendedCopy() {}

    /** Bytes moved per backstore call. */
    static final int CHUNK = 1 << 20;

    /** A validated segment. */
    private record Segment(Device src, Device dst, long srcLba, long dstLba, int blocks) {}

    public static int execute(Command cmd) {
        long paramLength = BigEndian.u32(cmd.cdb(), 10);
        if (paramLength == 0) {
            return CommandDescriptor.DONE; // SPC-4 §6.4.1: no parameter data is not an error
        }
        int n = cmd.dataOutLength();
        if (n < HEADER_LENGTH) {
            return cmd.fail(SenseReason.PARAMETER_LIST_LENGTH_ERROR);
        }
        int listId = cmd.outU8(0);
        int usage = cmd.outU8(1) >>> 3 & 0x3;
        int tdl = cmd.outU16(2);
        long sdl = cmd.outU32(8);
        long inline = cmd.outU32(12);
        if (HEADER_LENGTH + tdl + sdl + inline > n || tdl + sdl > XcopySpec.MAX_DESCRIPTOR_LIST_LENGTH) {
            return cmd.fail(SenseReason.PARAMETER_LIST_LENGTH_ERROR);
        }
        if (inline != 0) {
            return cmd.failParameterField(12, 7); // MAXIMUM INLINE DATA LENGTH is 0
        }
        if (usage == 1 || (usage == XcopySpec.LIST_ID_USAGE_NONE && listId != 0)) {
            return cmd.failParameterField(usage == 1 ? 1 : 0, usage == 1 ? 4 : 7);
        }
        if (tdl % TARGET_DESCRIPTOR_LENGTH != 0) {
            return cmd.failParameterField(2, 7);
        }
        int targets = tdl / TARGET_DESCRIPTOR_LENGTH;
        if (targets > XcopySpec.MAX_TARGET_DESCRIPTORS) {
            return cmd.fail(SenseReason.TOO_MANY_TARGET_DESCRIPTORS);
        }
        int[] segments = parseSegments(cmd, HEADER_LENGTH + tdl, (int) sdl);
        if (segments == null) {
            return CommandDescriptor.DONE;
        }
        for (int i = 0; i < targets; i++) {
            if (cmd.outU8(HEADER_LENGTH + TARGET_DESCRIPTOR_LENGTH * i) != XcopySpec.TARGET_IDENTIFICATION) {
                return cmd.fail(SenseReason.UNSUPPORTED_TARGET_DESCRIPTOR_TYPE_CODE);
            }
        }
        CopyResults results = cmd.device().copyResults();
        long key = CopyResults.key(cmd.nexus().id(), listId);
        boolean tracked = usage != XcopySpec.LIST_ID_USAGE_NONE;
        if (tracked && !results.begin(key)) {
            return cmd.fail(SenseReason.OPERATION_IN_PROGRESS);
        }
        long[] moved = new long[2]; // bytes, segments
        SenseReason failure = run(cmd, targets, segments, moved);
        if (failure != null) {
            cmd.fail(failure);
        }
        if (tracked) {
            results.finish(key, new CopyResults.Result(failure == null ? 1 : 2, (int) moved[1], moved[0],
                    failure == null ? ScsiStatus.GOOD : failure.status(), senseOf(failure)));
        }
        return CommandDescriptor.DONE;
    }

    /** Fixed-format sense data of a failure, for FAILED SEGMENT DETAILS (empty when none). */
    private static byte[] senseOf(SenseReason failure) {
        if (failure == null || !failure.hasSense()) {
            return new byte[0];
        }
        byte[] full = new byte[Sense.MAX_LENGTH];
        return Arrays.copyOf(full, Sense.encode(full, failure, 0, false));
    }

    /** @return the offsets of the segment descriptors, or null after failing the command */
    private static int[] parseSegments(Command cmd, int start, int length) {
        int[] offsets = new int[XcopySpec.MAX_SEGMENT_DESCRIPTORS];
        int p = start;
        int end = start + length;
        int count = 0;
        while (p < end) {
            if (count == XcopySpec.MAX_SEGMENT_DESCRIPTORS) {
                cmd.fail(SenseReason.TOO_MANY_SEGMENT_DESCRIPTORS);
                return null;
            }
            if (p + 4 > end) {
                cmd.fail(SenseReason.PARAMETER_LIST_LENGTH_ERROR);
                return null;
            }
            int type = cmd.outU8(p);
            int len = cmd.outU16(p + 2) + 4;
            int expected = type == XcopySpec.SEGMENT_BLOCK_TO_BLOCK ? B2B_SEGMENT_LENGTH
                    : type == XcopySpec.SEGMENT_BLOCK_TO_BLOCK_OFFSET ? XcopySpec.B2B_OFFSET_SEGMENT_LENGTH : -1;
            if (expected < 0) {
                cmd.fail(SenseReason.UNSUPPORTED_SEGMENT_DESCRIPTOR_TYPE_CODE);
                return null;
            }
            if (len != expected) {
                cmd.failParameterField(p + 2, 7);
                return null;
            }
            if (p + len > end) {
                cmd.fail(SenseReason.PARAMETER_LIST_LENGTH_ERROR);
                return null;
            }
            if (type == XcopySpec.SEGMENT_BLOCK_TO_BLOCK_OFFSET && (cmd.outU16(p + 28) != 0 || cmd.outU16(p + 30) != 0)) {
                cmd.failParameterField(cmd.outU16(p + 28) != 0 ? p + 28 : p + 30, 7); // byte offsets: not supported
                return null;
            }
            offsets[count++] = p;
            p += len;
        }
        return java.util.Arrays.copyOf(offsets, count);
    }

    /** Resolves targets, validates every segment, then copies. @return null on success, else the failure */
    private static SenseReason run(Command cmd, int targets, int[] segments, long[] moved) {
        Device[] devs = new Device[targets];
        for (int i = 0; i < targets; i++) {
            int off = HEADER_LENGTH + TARGET_DESCRIPTOR_LENGTH * i;
            if ((cmd.outU8(off + 1) & 0x1F) != 0) {
                return SenseReason.UNSUPPORTED_TARGET_DESCRIPTOR_TYPE_CODE; // only block devices are copy targets
            }
            devs[i] = resolve(cmd, off);
            if (devs[i] == null) {
                return SenseReason.COPY_ABORTED_COPY_TARGET_DEVICE_NOT_REACHABLE;
            }
            long blockLength = (long) cmd.outU8(off + 29) << 16 | cmd.outU16(off + 30);
            if (blockLength != devs[i].blockSize()) {
                return SenseReason.COPY_ABORTED;
            }
        }
        Segment[] plan = new Segment[segments.length];
        for (int s = 0; s < segments.length; s++) {
            int p = segments[s];
            int si = cmd.outU16(p + 4);
            int di = cmd.outU16(p + 6);
            if (si >= targets || di >= targets) {
                return SenseReason.COPY_ABORTED_UNREACHABLE_COPY_TARGET;
            }
            int blocks;
            if (cmd.outU8(p) == XcopySpec.SEGMENT_BLOCK_TO_BLOCK_OFFSET) {
                long bytes = cmd.outU32(p + 8);
                int bs = devs[di].blockSize();
                if (bytes % bs != 0 || bytes > 0xFFFFL * bs) {
                    return SenseReason.INVALID_FIELD_IN_PARAMETER_LIST; // DATA SEGMENT GRANULARITY / MAXIMUM SEGMENT LENGTH
                }
                blocks = (int) (bytes / bs);
            } else {
                blocks = cmd.outU16(p + 10);
            }
            long srcLba = cmd.outS64(p + 12);
            long dstLba = cmd.outS64(p + 20);
            if (!inRange(devs[si], srcLba, blocks) || !inRange(devs[di], dstLba, blocks)) {
                return SenseReason.COPY_ABORTED;
            }
            if (devs[di].writeProtected() || readOnlyFor(cmd, devs[di])) {
                return SenseReason.WRITE_PROTECTED;
            }
            PrState srcRes = devs[si].reservations().state();
            PrState dstRes = devs[di].reservations().state();
            if (srcRes.untrusted() || dstRes.untrusted()) {
                return SenseReason.BUSY; // a copy target's shared reservations cannot be checked now (SharedReservations)
            }
            if (!srcRes.allows(cmd.nexus(), false) || !dstRes.allows(cmd.nexus(), true)) {
                return SenseReason.RESERVATION_CONFLICT; // a copy target reserved by another I_T nexus
            }
            plan[s] = new Segment(devs[si], devs[di], srcLba, dstLba, blocks);
        }
        for (Segment seg : plan) {
            if (!BlockCopier.copy(cmd, seg.src(), seg.srcLba(), seg.dst(), seg.dstLba(), seg.blocks())) {
                return SenseReason.COPY_ABORTED;
            }
            moved[0] += (long) seg.blocks() * seg.dst().blockSize();
            moved[1]++;
        }
        return null;
    }

    private static boolean inRange(Device d, long lba, int blocks) {
        return lba >= 0 && lba + blocks <= d.blockCount();
    }

    /** The LU of this nexus whose NAA designator (VPD 83h, LU association) the target descriptor names. */
    private static Device resolve(Command cmd, int off) {
        int assocType = cmd.outU8(off + 5);
        int len = cmd.outU8(off + 7);
        if ((assocType >>> 4 & 0x3) != 0 || (assocType & 0xF) != XcopySpec.DESIGNATOR_NAA || len != 8) {
            return null;
        }
        long naa = cmd.outS64(off + 8);
        for (SessionLun l : cmd.nexus().sessionLuns()) {
            if (l.device().naa() == naa) {
                return l.device();
            }
        }
        return null;
    }

    private static boolean readOnlyFor(Command cmd, Device d) {
        for (SessionLun l : cmd.nexus().sessionLuns()) {
            if (l.device() == d && l.readOnly()) {
                return true;
            }
        }
        return false;
    }
}
