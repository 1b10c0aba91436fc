package io.hostwide.scsi.spec;

/** SPC-4 §6.6.2 Table 141 peripheral device types and Table 140 peripheral qualifiers. */
public final class PeripheralDeviceType {
    private PeripheralDeviceType() {}

    public static final int DIRECT_ACCESS_BLOCK = 0x00;
    public static final int SEQUENTIAL_ACCESS = 0x01;
    public static final int CD_DVD = 0x05;
    public static final int ENCLOSURE_SERVICES = 0x0D;
    public static final int WELL_KNOWN_LU = 0x1E;
    public static final int UNKNOWN_OR_NONE = 0x1F;

    /** Qualifier 000b: the LU is connected. */
    public static final int QUALIFIER_CONNECTED = 0x0;
    /** Qualifier 001b: supported but not connected. */
    public static final int QUALIFIER_NOT_CONNECTED = 0x1;
    /** Qualifier 011b: the device server cannot support a peripheral device on this LUN. */
    public static final int QUALIFIER_NOT_SUPPORTED = 0x3;
}
