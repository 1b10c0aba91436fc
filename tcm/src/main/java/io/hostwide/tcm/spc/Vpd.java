package io.hostwide.tcm.spc;

import io.hostwide.scsi.spec.BigEndian;
import io.hostwide.scsi.spec.VpdPage;
import io.hostwide.scsi.spec.VpdPage.BlockLimits;
import io.hostwide.scsi.spec.VpdPage.Designator;
import io.hostwide.scsi.spec.VpdPage.LogicalBlockProvisioning;
import io.hostwide.tcm.dispatch.Command;
import io.hostwide.tcm.dispatch.CommandTable;
import io.hostwide.tcm.dispatch.VpdPageWriter;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.lu.DeviceAttributes;
import io.hostwide.tcm.lu.Lun;
import io.hostwide.tcm.port.TargetPort;

import java.nio.charset.StandardCharsets;

/** Vital product data pages (SPC-4 §7.8, SBC-4 §6.6). */
final class Vpd {
    private Vpd() {}

    /** The pages served here, in ascending order (SPC-4 §7.8.13 requires the order of the supported list). */
    static final int[] PAGES = {VpdPage.SUPPORTED_VPD_PAGES, VpdPage.UNIT_SERIAL_NUMBER, VpdPage.DEVICE_IDENTIFICATION,
            VpdPage.EXTENDED_INQUIRY_DATA, VpdPage.BLOCK_LIMITS, VpdPage.BLOCK_DEVICE_CHARACTERISTICS,
            VpdPage.LOGICAL_BLOCK_PROVISIONING};

    static int execute(Command cmd, Device dev, int page) {
        byte[] d = cmd.scratch(512);
        d[0] = (byte) dev.deviceType();
        d[1] = (byte) page;
        VpdPageWriter contributed = cmd.commandTable().vpdPage(page); // a page another command set brings (8Fh)
        int len = contributed != null ? contributed.write(d) : switch (page) {
            case VpdPage.SUPPORTED_VPD_PAGES -> supported(d, cmd.commandTable());
            case VpdPage.UNIT_SERIAL_NUMBER -> serial(d, dev);
            case VpdPage.DEVICE_IDENTIFICATION -> identification(d, cmd, dev);
            case VpdPage.EXTENDED_INQUIRY_DATA -> extended(d, dev);
            case VpdPage.BLOCK_LIMITS -> blockLimits(d, dev);
            case VpdPage.BLOCK_DEVICE_CHARACTERISTICS -> characteristics(d, dev);
            case VpdPage.LOGICAL_BLOCK_PROVISIONING -> provisioning(d, dev);
            default -> -1;
        };
        if (len < 0) {
            return cmd.failCdbField(2, 7);
        }
        BigEndian.put16(d, 2, len - VpdPage.HEADER_LENGTH);
        return cmd.respond(d, len);
    }

    /** This package's pages merged with the table's contributed ones, ascending. */
    private static int supported(byte[] d, CommandTable table) {
        int[] more = table.vpdPageCodes();
        int p = 4;
        int i = 0;
        int j = 0;
        while (i < PAGES.length || j < more.length) {
            d[p++] = (byte) (j == more.length || i < PAGES.length && PAGES[i] < more[j] ? PAGES[i++] : more[j++]);
        }
        return p;
    }

    private static int serial(byte[] d, Device dev) {
        byte[] s = dev.unitSerial().getBytes(StandardCharsets.US_ASCII);
        int n = Math.min(s.length, 200);
        System.arraycopy(s, 0, d, 4, n);
        return 4 + n;
    }

    /** SPC-4 §7.8.6: LU designators (NAA, T10 vendor ID), target port designators, target device name. */
    private static int identification(byte[] d, Command cmd, Device dev) {
        TargetPort port = cmd.targetPort();
        Lun lun = cmd.sessionLun().lun();
        int proto = port.protocolIdentifier();
        int p = 4;
        // NAA IEEE Registered, logical unit association
        p = header(d, p, 0, Designator.CODE_SET_BINARY, Designator.ASSOCIATION_LU | Designator.TYPE_NAA, 8);
        BigEndian.put64(d, p, dev.naa());
        p += 8;
        // T10 vendor ID based: vendor (8) + unit serial
        byte[] serial = dev.unitSerial().getBytes(StandardCharsets.US_ASCII);
        int t10 = 8 + Math.min(serial.length, 64);
        p = header(d, p, 0, Designator.CODE_SET_ASCII, Designator.ASSOCIATION_LU | Designator.TYPE_T10_VENDOR_ID, t10);
        Inquiry.ascii(d, p, 8, dev.attributes().vendor());
        System.arraycopy(serial, 0, d, p + 8, t10 - 8);
        p += t10;
        // relative target port
        p = header(d, p, proto, Designator.CODE_SET_BINARY,
                Designator.PIV | Designator.ASSOCIATION_TARGET_PORT | Designator.TYPE_RELATIVE_TARGET_PORT, 4);
        BigEndian.put16(d, p + 2, port.relativePortId());
        p += 4;
        // target port group
        p = header(d, p, proto, Designator.CODE_SET_BINARY,
                Designator.PIV | Designator.ASSOCIATION_TARGET_PORT | Designator.TYPE_TARGET_PORT_GROUP, 4);
        BigEndian.put16(d, p + 2, lun.aluaGroup().id());
        p += 4;
        // SCSI name string of the target port and of the target device (UTF-8, NUL terminated, 4-byte multiple)
        p = nameString(d, p, proto, Designator.ASSOCIATION_TARGET_PORT, port.portName());
        p = nameString(d, p, proto, Designator.ASSOCIATION_TARGET_DEVICE, port.target().name());
        return p;
    }

    private static int header(byte[] d, int p, int proto, int codeSet, int typeByte, int len) {
        d[p] = (byte) (proto << 4 | codeSet);
        d[p + 1] = (byte) typeByte;
        d[p + 3] = (byte) len;
        return p + Designator.HEADER_LENGTH;
    }

    private static int nameString(byte[] d, int p, int proto, int association, String name) {
        byte[] n = name.getBytes(StandardCharsets.UTF_8);
        int len = Math.min((n.length + 1 + 3) & ~3, 256);
        p = header(d, p, proto, Designator.CODE_SET_UTF8, Designator.PIV | association | Designator.TYPE_SCSI_NAME_STRING, len);
        System.arraycopy(n, 0, d, p, Math.min(n.length, len - 1));
        return p + len;
    }

    /** SPC-4 §7.8.7: HEAD OF QUEUE, ORDERED and SIMPLE task attributes supported; volatile cache supported. */
    private static int extended(byte[] d, Device dev) {
        d[5] = 0x07; // HEADSUP | ORDSUP | SIMPSUP (TaskAttributeGate)
        d[6] = 0x01; // V_SUP: a volatile cache exists when WCE is on
        return 4 + VpdPage.EXTENDED_INQUIRY_PAGE_LENGTH;
    }

    /** SBC-4 §6.6.4 Block Limits. */
    private static int blockLimits(byte[] d, Device dev) {
        DeviceAttributes a = dev.attributes();
        d[BlockLimits.MAXIMUM_COMPARE_AND_WRITE_LENGTH] = (byte) (a.emulateCaw() ? a.maxCompareAndWriteLength() : 0);
        BigEndian.put16(d, BlockLimits.OPTIMAL_TRANSFER_LENGTH_GRANULARITY, a.logicalBlocksPerPhysicalBlock());
        BigEndian.put32(d, BlockLimits.MAXIMUM_TRANSFER_LENGTH, dev.maxTransferBlocks());
        BigEndian.put32(d, BlockLimits.OPTIMAL_TRANSFER_LENGTH, dev.optimalTransferBlocks());
        BigEndian.put32(d, BlockLimits.MAXIMUM_PREFETCH_LENGTH, dev.maxTransferBlocks());
        if (dev.thinProvisioned()) {
            BigEndian.put32(d, BlockLimits.MAXIMUM_UNMAP_LBA_COUNT, a.maxUnmapLbaCount());
            BigEndian.put32(d, BlockLimits.MAXIMUM_UNMAP_BLOCK_DESCRIPTOR_COUNT, a.maxUnmapBlockDescriptorCount());
            BigEndian.put32(d, BlockLimits.OPTIMAL_UNMAP_GRANULARITY, a.effectiveUnmapGranularity());
            if (a.unmapGranularityAlignment() != 0) {
                BigEndian.put32(d, BlockLimits.UNMAP_GRANULARITY_ALIGNMENT, a.unmapGranularityAlignment() | 0x8000_0000L);
            }
        }
        BigEndian.put64(d, BlockLimits.MAXIMUM_WRITE_SAME_LENGTH, a.maxWriteSameLength());
        if (a.emulateWriteAtomic()) {
            BigEndian.put32(d, BlockLimits.MAXIMUM_ATOMIC_TRANSFER_LENGTH, Math.min(a.maxAtomicTransferLength(), dev.maxTransferBlocks()));
            BigEndian.put32(d, BlockLimits.ATOMIC_ALIGNMENT, a.atomicAlignment());
            BigEndian.put32(d, BlockLimits.ATOMIC_TRANSFER_LENGTH_GRANULARITY, a.atomicTransferLengthGranularity());
        }
        return BlockLimits.LENGTH;
    }

    /** SBC-4 §6.6.2 Block Device Characteristics: rotation rate 1 = non-rotating medium. */
    private static int characteristics(byte[] d, Device dev) {
        BigEndian.put16(d, 4, dev.attributes().nonRotational() ? 1 : 0);
        if (dev.attributes().emulateSanitize()) {
            // SBC-4 §6.6.2 WABEREQ / WACEREQ = 01b: after BLOCK ERASE or CRYPTOGRAPHIC ERASE a read completes with
            // GOOD status (the blocks are deallocated or zeroed); libiscsi Sanitize.BlockErase/CryptoErase
            d[7] = (byte) (0b01 << 6 | 0b01 << 4);
        }
        return 4 + VpdPage.BLOCK_DEVICE_CHARACTERISTICS_PAGE_LENGTH;
    }

    /** SBC-4 §6.6.5 Logical Block Provisioning. */
    private static int provisioning(byte[] d, Device dev) {
        if (dev.thinProvisioned()) {
            int f = dev.attributes().provisioningCommands()
                    & (LogicalBlockProvisioning.LBPU | LogicalBlockProvisioning.LBPWS | LogicalBlockProvisioning.LBPWS10);
            if (dev.backstore().unmapReturnsZeros()) {
                f |= 1 << LogicalBlockProvisioning.LBPRZ_SHIFT;
            }
            d[LogicalBlockProvisioning.FLAGS] = (byte) f;
            d[LogicalBlockProvisioning.PROVISIONING_TYPE] = LogicalBlockProvisioning.PROVISIONING_TYPE_THIN;
        }
        return LogicalBlockProvisioning.LENGTH;
    }
}
