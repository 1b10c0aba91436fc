package io.hostwide.tcm.spc;

import io.hostwide.scsi.spec.BigEndian;
import io.hostwide.scsi.spec.ModePage;
import io.hostwide.scsi.spec.ScsiOpcode;
import io.hostwide.tcm.dispatch.Command;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.lu.ModePages;

/**
 * MODE SENSE(6) and MODE SENSE(10) (SPC-4 §6.11, §6.12): header, an optional short (or, with LLBAA, long) block
 * descriptor, then the page asked for or all pages (3Fh). Page control selects current, changeable, default or
 * saved values. No subpages exist; subpage FFh with page 3Fh means all pages.
 */
public final class ModeSense {
    private ModeSense() {}

    public static int execute(Command cmd) {
        byte[] cdb = cmd.cdb();
        boolean ten = (cdb[0] & 0xFF) == ScsiOpcode.MODE_SENSE_10;
        boolean dbd = (cdb[1] & 0x08) != 0;
        boolean llbaa = ten && (cdb[1] & 0x10) != 0;
        int pc = (cdb[2] & 0xC0) >>> 6;
        int page = cdb[2] & ModePage.PAGE_CODE_MASK;
        int subpage = cdb[3] & 0xFF;
        Device dev = cmd.device();
        ModePages pages = dev.modePages();
        if (page == ModePage.ALL_PAGES) {
            if (subpage != ModePage.SUBPAGE_NONE && subpage != ModePage.SUBPAGE_ALL) {
                return cmd.failCdbField(3, 7);
            }
        } else {
            if (!ModePages.supported(page)) {
                return cmd.failCdbField(2, 5);
            }
            if (subpage != ModePage.SUBPAGE_NONE) {
                return cmd.failCdbField(3, 7);
            }
        }
        byte[] d = cmd.scratch(512);
        int header = ten ? ModePage.HEADER10_LENGTH : ModePage.HEADER6_LENGTH;
        int p = header;
        int bdLen = 0;
        if (!dbd) {
            bdLen = blockDescriptor(d, p, dev, llbaa);
            p += bdLen;
        }
        if (page == ModePage.ALL_PAGES) {
            for (int code : ModePages.PAGES) {
                p += pages.copy(code, pc, d, p);
            }
        } else {
            p += pages.copy(page, pc, d, p);
        }
        int deviceSpecific = ModePage.DEVICE_SPECIFIC_DPOFUA
                | (dev.writeProtected() || cmd.sessionLun().readOnly() ? ModePage.DEVICE_SPECIFIC_WP : 0);
        if (ten) {
            BigEndian.put16(d, 0, p - 2);
            d[3] = (byte) deviceSpecific;
            d[4] = (byte) (llbaa && bdLen == ModePage.LONG_BLOCK_DESCRIPTOR_LENGTH ? 0x01 : 0);
            BigEndian.put16(d, 6, bdLen);
        } else {
            d[0] = (byte) (p - 1);
            d[2] = (byte) deviceSpecific;
            d[3] = (byte) bdLen;
        }
        return cmd.respond(d, p);
    }

    /** SBC-4 §6.5.2: short descriptor caps NUMBER OF BLOCKS at FFFFFFFFh; long one carries 64 bits. */
    private static int blockDescriptor(byte[] d, int p, Device dev, boolean longLba) {
        long blocks = dev.blockCount();
        if (longLba) {
            BigEndian.put64(d, p, blocks);
            BigEndian.put32(d, p + 12, dev.blockSize());
            return ModePage.LONG_BLOCK_DESCRIPTOR_LENGTH;
        }
        BigEndian.put32(d, p, Math.min(blocks, 0xFFFF_FFFFL));
        BigEndian.put24(d, p + 5, dev.blockSize());
        return ModePage.SHORT_BLOCK_DESCRIPTOR_LENGTH;
    }
}
