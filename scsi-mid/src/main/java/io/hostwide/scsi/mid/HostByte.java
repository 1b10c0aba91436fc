package io.hostwide.scsi.mid;

/**
 * The host byte of a command's result ({@code DID_*}, include/scsi/scsi_status.h): what the HBA says about the
 * delivery, as opposed to the SAM status byte the device returned. A result is {@code hostByte << 16 | status}.
 */
public final class HostByte {
    public static final int DID_OK = 0x00;
    /** The target or LUN is not there (device offline, no such path). */
    public static final int DID_NO_CONNECT = 0x01;
    public static final int DID_BUS_BUSY = 0x02;
    public static final int DID_TIME_OUT = 0x03;
    public static final int DID_BAD_TARGET = 0x04;
    public static final int DID_ABORT = 0x05;
    public static final int DID_ERROR = 0x07;
    public static final int DID_RESET = 0x08;
    public static final int DID_BAD_INTR = 0x09;
    public static final int DID_SOFT_ERROR = 0x0B;
    public static final int DID_IMM_RETRY = 0x0C;
    public static final int DID_REQUEUE = 0x0D;
    public static final int DID_TRANSPORT_DISRUPTED = 0x0E;
    public static final int DID_TRANSPORT_FAILFAST = 0x0F;
    public static final int DID_TARGET_FAILURE = 0x10;

    private HostByte() {
    }

    public static int result(int hostByte, int status) {
        return (hostByte & 0xFF) << 16 | (status & 0xFF);
    }

    public static int hostByte(int result) {
        return result >>> 16 & 0xFF;
    }

    public static int status(int result) {
        return result & 0xFF;
    }
}
