package io.hostwide.tcm.spc;

import io.hostwide.scsi.spec.Asc;
import io.hostwide.scsi.spec.ModePage;
import io.hostwide.scsi.spec.ScsiOpcode;
import io.hostwide.tcm.dispatch.Command;
import io.hostwide.tcm.dispatch.CommandDescriptor;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.lu.ModePages;
import io.hostwide.tcm.spi.SenseReason;
import io.hostwide.tcm.spi.DataPathErrors;

import java.io.IOException;

/**
 * MODE SELECT(6) and MODE SELECT(10) (SPC-4 §6.9, §6.10). The whole parameter list is validated first — header,
 * block descriptor (block length must be the current one), each page's code, length and that only changeable
 * bits differ from the current value — and only then applied, so a rejected list changes nothing. A change
 * raises MODE PARAMETERS CHANGED for the other I_T nexuses (SPC-4 §7.5.1). PS is reserved in MODE SELECT and
 * ignored, as the value MODE SENSE returned is commonly sent back.
 */
public final class ModeSelect {
    private ModeSelect() {}

    static final int PF = 0x10;
    static final int SP = 0x01;

    public static int execute(Command cmd) {
        byte[] cdb = cmd.cdb();
        boolean ten = (cdb[0] & 0xFF) == ScsiOpcode.MODE_SELECT_10;
        int len = cmd.dataOutLength();
        if (len == 0) {
            return CommandDescriptor.DONE;
        }
        if ((cdb[1] & PF) == 0) {
            return cmd.failCdbField(1, 4); // only the SPC page format is understood
        }
        boolean save = (cdb[1] & SP) != 0;
        int header = ten ? ModePage.HEADER10_LENGTH : ModePage.HEADER6_LENGTH;
        if (len < header) {
            return cmd.fail(SenseReason.PARAMETER_LIST_LENGTH_ERROR);
        }
        int bdLen = ten ? cmd.outU16(6) : cmd.outU8(3);
        int p = header;
        Device dev = cmd.device();
        if (bdLen != 0) {
            if (!blockDescriptorOk(cmd, dev, p, bdLen, ten && (cmd.outU8(4) & 0x01) != 0)) {
                return CommandDescriptor.DONE;
            }
            p += bdLen;
        }
        ModePages pages = dev.modePages();
        byte[][] staged = new byte[64][];
        while (p < len) {
            if (p + 2 > len) {
                return cmd.fail(SenseReason.PARAMETER_LIST_LENGTH_ERROR);
            }
            int code = cmd.outU8(p) & ModePage.PAGE_CODE_MASK;
            if ((cmd.outU8(p) & ModePage.SPF) != 0 || !ModePages.supported(code)) {
                return cmd.failParameterField(p, 5);
            }
            int pageLen = cmd.outU8(p + 1) + 2;
            if (pageLen != pages.length(code)) {
                return cmd.failParameterField(p + 1, 7);
            }
            if (p + pageLen > len) {
                return cmd.fail(SenseReason.PARAMETER_LIST_LENGTH_ERROR);
            }
            byte[] current = staged[code] != null ? staged[code] : pages.currentCopy(code);
            byte[] mask = pages.changeableMask(code);
            byte[] next = current.clone();
            for (int i = 2; i < pageLen; i++) {
                int v = cmd.outU8(p + i);
                int diff = (v ^ current[i]) & 0xFF & ~mask[i];
                if (diff != 0) {
                    return cmd.failParameterField(p + i, 31 - Integer.numberOfLeadingZeros(diff));
                }
                next[i] = (byte) v;
            }
            staged[code] = next;
            p += pageLen;
        }
        return apply(cmd, dev, staged, save);
    }

    private static boolean blockDescriptorOk(Command cmd, Device dev, int p, int bdLen, boolean longLba) {
        int expect = longLba ? ModePage.LONG_BLOCK_DESCRIPTOR_LENGTH : ModePage.SHORT_BLOCK_DESCRIPTOR_LENGTH;
        if (bdLen != expect || p + bdLen > cmd.dataOutLength()) {
            cmd.fail(SenseReason.PARAMETER_LIST_LENGTH_ERROR);
            return false;
        }
        long blockLength = longLba ? cmd.outU32(p + 12) : (cmd.outU8(p + 5) << 16 | cmd.outU16(p + 6));
        if (blockLength != dev.blockSize()) {
            cmd.failParameterField(longLba ? p + 12 : p + 5, -1);
            return false;
        }
        return true;
    }

    private static int apply(Command cmd, Device dev, byte[][] staged, boolean save) {
        ModePages pages = dev.modePages();
        boolean wceBefore = pages.writeCacheEnabled();
        boolean changed = false;
        for (int code = 0; code < staged.length; code++) {
            if (staged[code] != null) {
                changed |= !java.util.Arrays.equals(staged[code], pages.currentCopy(code));
                pages.install(code, staged[code], save);
            }
        }
        if (wceBefore && !pages.writeCacheEnabled()) {
            try {
                dev.backstore().flush(); // nothing may stay volatile once the write cache is off
            } catch (IOException e) {
                DataPathErrors.LOG.report(dev.name(), "MODE SELECT flush (write cache off)", -1, -1, e);
                return cmd.fail(SenseReason.WRITE_ERROR);
            }
        }
        if (changed) {
            dev.broadcastUnitAttention(Asc.MODE_PARAMETERS_CHANGED, cmd.sessionLun());
        }
        return CommandDescriptor.DONE;
    }
}
