/**
 * The SCSI disk driver (sd's role): a {@link io.hostwide.blk.api.BlockDevice} per direct-access LUN whose block
 * requests become READ/WRITE(10/16), SYNCHRONIZE CACHE and UNMAP / WRITE SAME(16) commands.
 */
package io.hostwide.scsi.sd;
