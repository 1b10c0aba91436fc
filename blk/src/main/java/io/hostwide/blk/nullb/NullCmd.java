package io.hostwide.blk.nullb;

import io.hostwide.blk.BlkStatus;

/** null_blk's per-request PDU ({@code struct nullb_cmd}): the outcome and, in timer mode, when it is due. */
final class NullCmd {
    BlkStatus status = BlkStatus.OK;
    long due;
    /** Dropped by timeout injection: nobody holds it, the timeout handler ends it. */
    volatile boolean dropped;
}
