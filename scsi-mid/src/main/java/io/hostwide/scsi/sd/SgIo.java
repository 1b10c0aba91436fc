package io.hostwide.scsi.sd;

import io.hostwide.scsi.mid.HostByte;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.scsi.spec.SenseData;

/**
 * One passthrough SCSI command through a disk's block queue ({@code sg_io_hdr}'s role, sent as a
 * {@code REQ_OP_DRV_IN}/{@code DRV_OUT} request): the caller fills the CDB, the disk fills the outcome. Reusable:
 * {@link #cdb(byte[], int)} starts a new use. The block-layer callback reports whether the command reached the
 * device (OK) or not (a host-side failure); the SCSI status and sense are here.
 */
public final class SgIo {
    private final byte[] cdb = new byte[32];
    private int cdbLength;
    private volatile int hostByte;
    private int status;
    private final byte[] sense = new byte[96];
    private int senseLength;
    private int resid;

    /** Sets the CDB (6..32 bytes) and clears the previous outcome. */
    public SgIo cdb(byte[] c, int length) {
        if (length < 6 || length > cdb.length) {
            throw new IllegalArgumentException("CDB length must be 6.." + cdb.length + ", got " + length);
        }
        System.arraycopy(c, 0, cdb, 0, length);
        cdbLength = length;
        status = 0;
        senseLength = 0;
        resid = 0;
        hostByte = HostByte.DID_OK;
        return this;
    }

    byte[] cdbBytes() {
        return cdb;
    }

    int cdbLength() {
        return cdbLength;
    }

    /** Called by the disk when the command ends; the volatile write of the host byte publishes the rest. */
    void complete(int host, int st, byte[] s, int sLen, int residual) {
        status = st;
        senseLength = Math.min(sLen, sense.length);
        System.arraycopy(s, 0, sense, 0, senseLength);
        resid = residual;
        hostByte = host;
    }

    public int hostByte() { return hostByte; }

    /** SCSI status (GOOD, CHECK CONDITION, ...). */
    public int status() { return status; }

    public boolean good() { return hostByte == HostByte.DID_OK && status == ScsiStatus.GOOD; }

    public int resid() { return resid; }

    /** Sense key, or -1 without sense data. */
    public int senseKey() {
        return senseLength < 3 ? -1 : SenseData.senseKey(sense);
    }

    /** ASC << 8 | ASCQ, or -1. */
    public int ascAscq() {
        if (senseLength < 14 && !(senseLength >= 4 && SenseData.isDescriptorFormat(sense))) {
            return -1;
        }
        return SenseData.ascAscq(sense);
    }

    /** The INFORMATION field (fixed or descriptor format), or -1 when the sense has none. */
    public long information() {
        return senseLength < 8 ? -1 : SenseData.information(sense, senseLength);
    }
}
