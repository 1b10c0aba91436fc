package io.hostwide.tcm.lu;

import io.hostwide.tcm.spi.SenseReason;

/**
 * A long operation of a logical unit that makes it not ready while it runs (SBC-4 §4.11: a sanitize operation).
 * Every command but INQUIRY, REPORT LUNS and REQUEST SENSE then ends with CHECK CONDITION, {@link #notReadyReason()}
 * and the progress indication; REQUEST SENSE reports the same with NO SENSE (SPC-4 §6.39).
 */
public interface BackgroundOperation {

    /** NOT READY with the additional sense code naming the operation (04h/1Bh SANITIZE IN PROGRESS). */
    SenseReason notReadyReason();

    /** SPC-4 §4.4.2.4.4 PROGRESS INDICATION: the fraction of the operation done, in 65536ths (0..65535). */
    int progressIndication();
}
