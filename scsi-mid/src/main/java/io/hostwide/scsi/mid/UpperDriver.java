package io.hostwide.scsi.mid;

import io.hostwide.blk.BlkStatus;
import io.hostwide.blk.Request;

/**
 * An upper-level driver bound to a {@link ScsiDevice} (sd's role: {@code init_command} and {@code done}): turns
 * block requests into CDBs and SCSI results back into block statuses.
 */
public interface UpperDriver {

    /**
     * {@code init_command}: fills {@code cmd}'s CDB, direction and data window for {@code rq} with
     * {@link ScsiDevice#prepare}. Returns {@link BlkStatus#OK}, or an error that ends the request unsent.
     */
    BlkStatus initCommand(ScsiCmnd cmd, Request rq);

    /** The block status for a finished command (GOOD → OK; sense-based mapping otherwise). */
    BlkStatus done(ScsiCmnd cmd);
}
