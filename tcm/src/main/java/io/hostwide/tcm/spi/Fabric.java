package io.hostwide.tcm.spi;

/**
 * The transport SPI: what the core asks of a fabric (iSCSI, the in-process loop fabric, a test fabric).
 * The fabric owns the wire; the core owns SCSI. A fabric never interprets a CDB and never writes sense bytes.
 *
 * <p>A fabric hands a command to the core with its session's {@code submit} after it has collected all Data-Out
 * (see {@link TargetCommand}); the core answers through {@link #complete(TargetCommand)}.
 */
public interface Fabric {

    /** SPC-4 §7.6.1 Table 362 protocol identifier of this transport (5 = iSCSI); used in VPD 83h and transport IDs. */
    int protocolIdentifier();

    /**
     * Status, sense data, Data-In and residuals of {@code cmd} are final. Called exactly once per submitted
     * command, on the thread that completed it: inside {@code submit} for inline backstores (RAM, null) or
     * on a backstore I/O thread for queued ones (file). Must not block. The fabric sends the response and then
     * calls {@link TargetCommand#release()}; until then the command's buffers stay valid.
     */
    void complete(TargetCommand cmd);
}
