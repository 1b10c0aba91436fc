package io.hostwide.scsi.spec;

/** SPC-4 §6.6.2 Table 144 version descriptor values reported in standard INQUIRY data bytes 58..73. */
public final class VersionDescriptor {
    private VersionDescriptor() {}

    public static final int SAM_5 = 0x00A0;
    public static final int SPC_4 = 0x0460;
    public static final int SBC_3 = 0x04C0;
    public static final int SBC_4 = 0x0600;
    public static final int ISCSI = 0x0960;
    /** SPC-4 §6.6.2: the VERSION field value claiming SPC-4 conformance. */
    public static final int VERSION_SPC_4 = 0x06;
}
