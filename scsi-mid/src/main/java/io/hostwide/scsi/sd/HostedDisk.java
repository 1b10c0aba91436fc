package io.hostwide.scsi.sd;

import io.hostwide.blk.RequestQueue;
import io.hostwide.blk.api.BlockDevice;
import io.hostwide.blk.api.SubmitHandle;

/**
 * A SCSI disk handed out as a {@link BlockDevice} by a provider that created a whole host for it ({@code loop:},
 * {@code debug:}, {@code iscsi:}): block I/O goes to the disk, and closing the device closes its host.
 *
 * @param <H> the host's owner (an emulated HBA, an iSCSI session)
 */
public class HostedDisk<H extends HostedDisk.Host> implements BlockDevice {
    /** What closing the device closes; must not throw. */
    public interface Host extends AutoCloseable {
        @Override
        void close();
    }

    private final H host;
    private final ScsiDisk disk;

    protected HostedDisk(H host, ScsiDisk disk) {
        this.host = host;
        this.disk = disk;
    }

    /** The owner whose host serves this disk. */
    public H hba() { return host; }

    public ScsiDisk disk() { return disk; }

    @Override
    public String name() { return disk.name(); }

    @Override
    public int logicalBlockSize() { return disk.logicalBlockSize(); }

    @Override
    public long capacityBytes() { return disk.capacityBytes(); }

    @Override
    public SubmitHandle openHandle() { return disk.openHandle(); }

    @Override
    public RequestQueue queue() { return disk.queue(); }

    @Override
    public void close() { host.close(); }
}
