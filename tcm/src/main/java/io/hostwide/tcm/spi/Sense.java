package io.hostwide.tcm.spi;

import io.hostwide.scsi.spec.DescriptorSense;
import io.hostwide.scsi.spec.FixedSense;
import io.hostwide.scsi.spec.SenseData;

/**
 * The one place where sense bytes are written (SPC-4 §4.5): a command's completion and REQUEST SENSE's parameter
 * data both encode through here, in fixed or descriptor format as the control mode page D_SENSE bit asks. Handlers
 * never write sense bytes themselves; they name a {@link SenseReason}.
 */
public final class Sense {
    private Sense() {}

    /** SPC-4 §4.5.1: sense data is at most 252 bytes. */
    public static final int MAX_LENGTH = 252;

    /**
     * Sense data with an explicit sense key, ASC/ASCQ, INFORMATION field (when {@code informationValid}) and
     * sense-key-specific value (-1: none).
     */
    public static int encode(byte[] dst, int senseKey, int ascAscq, boolean informationValid, long information,
                             int sks, boolean descriptor) {
        return descriptor ? DescriptorSense.encode(dst, senseKey, ascAscq, informationValid, information, sks)
                : FixedSense.encode(dst, senseKey, ascAscq, informationValid, information, sks);
    }

    /**
     * Sense data for a reason as REQUEST SENSE returns it in its parameter data (SPC-4 §6.39).
     *
     * @param ascAscq the ASC/ASCQ to report for {@link SenseReason#UNIT_ATTENTION}; ignored otherwise
     */
    public static int encode(byte[] dst, SenseReason r, int ascAscq, boolean descriptor) {
        int asc = r == SenseReason.UNIT_ATTENTION ? ascAscq : r.ascAscq();
        return encode(dst, r.senseKey(), asc, -1, descriptor);
    }

    /**
     * Sense data with an explicit sense key, ASC/ASCQ and sense-key-specific value (-1: none), as REQUEST SENSE
     * returns a progress indication under NO SENSE (SPC-4 §6.39.2).
     */
    public static int encode(byte[] dst, int senseKey, int ascAscq, int sks, boolean descriptor) {
        return encode(dst, senseKey, ascAscq, false, 0, sks, descriptor);
    }

    /** NO SENSE sense data (REQUEST SENSE with nothing to report). */
    public static int noSense(byte[] dst, boolean descriptor) {
        return encode(dst, 0, 0, false, 0, -1, descriptor);
    }

    /** The 3-byte sense-key-specific value for a progress indication (SPC-4 §4.4.2.4.4): SKSV, then the fraction. */
    public static int progressIndication(int progress) {
        return SenseData.SKSV | Math.max(0, Math.min(0xFFFF, progress));
    }
}
