package io.hostwide.tcm.spc;

import io.hostwide.scsi.spec.BigEndian;
import io.hostwide.scsi.spec.LunAddress;
import io.hostwide.scsi.spec.PeripheralDeviceType;
import io.hostwide.scsi.spec.StandardInquiry;
import io.hostwide.scsi.spec.VersionDescriptor;
import io.hostwide.scsi.spec.VpdPage;
import io.hostwide.tcm.dispatch.Command;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.lu.DeviceAttributes;
import io.hostwide.tcm.port.TargetPort;

import java.nio.charset.StandardCharsets;

/** INQUIRY (SPC-4 §6.6): standard data and the VPD pages of {@link Vpd}. */
public final class Inquiry {
    private Inquiry() {}

    static final int EVPD = 0x01;

    public static int execute(Command cmd) {
        byte[] cdb = cmd.cdb();
        boolean evpd = (cdb[1] & EVPD) != 0;
        int page = cdb[2] & 0xFF;
        Device dev = cmd.device();
        if (!evpd) {
            if (page != 0) {
                return cmd.failCdbField(2, 7); // SPC-4 §6.6.1: PAGE CODE must be zero when EVPD is zero
            }
            return standard(cmd, dev);
        }
        if (dev == null) {
            return cmd.failCdbField(1, 0); // no VPD for a LUN that is not there
        }
        return Vpd.execute(cmd, dev, page);
    }

    private static int standard(Command cmd, Device dev) {
        byte[] d = cmd.scratch(StandardInquiry.LENGTH_WITH_DESCRIPTORS);
        TargetPort port = cmd.targetPort();
        if (dev == null && LunAddress.decode(cmd.lun()) == LunAddress.DECODED_WLUN_REPORT_LUNS) {
            d[0] = PeripheralDeviceType.WELL_KNOWN_LU; // SPC-4 §8.1: a well-known LU, qualifier 000b
        } else if (dev == null) {
            d[0] = (byte) (PeripheralDeviceType.QUALIFIER_NOT_SUPPORTED << 5 | PeripheralDeviceType.UNKNOWN_OR_NONE);
        } else {
            d[0] = (byte) dev.deviceType();
            d[1] = (byte) (dev.attributes().removable() ? StandardInquiry.RMB : 0);
        }
        d[2] = VersionDescriptor.VERSION_SPC_4;
        d[3] = (byte) (StandardInquiry.HISUP | StandardInquiry.RESPONSE_DATA_FORMAT_2);
        d[4] = (byte) (StandardInquiry.LENGTH_WITH_DESCRIPTORS - 5);
        // TPGS 11b: implicit and explicit ALUA (SPC-4 §6.6.2); 3PC: EXTENDED COPY (io.hostwide.tcm.alua, .xcopy)
        d[5] = (byte) (dev == null ? 0 : StandardInquiry.TPGS_IMPLICIT | StandardInquiry.TPGS_EXPLICIT | StandardInquiry.THREE_PC);
        d[6] = (byte) (port.target().ports().size() > 1 ? StandardInquiry.MULTIP : 0);
        d[7] = StandardInquiry.CMDQUE;
        DeviceAttributes a = dev != null ? dev.attributes() : new DeviceAttributes();
        ascii(d, StandardInquiry.VENDOR, StandardInquiry.VENDOR_LENGTH, a.vendor());
        ascii(d, StandardInquiry.PRODUCT, StandardInquiry.PRODUCT_LENGTH, a.product());
        ascii(d, StandardInquiry.REVISION, StandardInquiry.REVISION_LENGTH, a.revision());
        int v = StandardInquiry.VERSION_DESCRIPTORS;
        BigEndian.put16(d, v, VersionDescriptor.SAM_5);
        BigEndian.put16(d, v + 2, VersionDescriptor.SPC_4);
        BigEndian.put16(d, v + 4, VersionDescriptor.SBC_3);
        if (port.protocolIdentifier() == VpdPage.Designator.PROTOCOL_ISCSI) {
            BigEndian.put16(d, v + 6, VersionDescriptor.ISCSI);
        }
        return cmd.respond(d, StandardInquiry.LENGTH_WITH_DESCRIPTORS);
    }

    /** Left-aligned ASCII, space padded (SPC-4 §4.4.1). */
    static void ascii(byte[] d, int off, int len, String s) {
        byte[] b = s.getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < len; i++) {
            d[off + i] = i < b.length ? b[i] : (byte) ' ';
        }
    }
}
