package io.hostwide.management;

import io.hostwide.management.config.ServeConfig;
import io.hostwide.management.config.ServeConfigLoader;
import io.hostwide.management.config.ConfigKeyException;
import io.hostwide.management.util.Sizes;
import io.hostwide.tcm.backstore.BlockBackstore;
import io.hostwide.tcm.backstore.BlockDevice;
import io.hostwide.tcm.backstore.FileBackstore;
import io.hostwide.tcm.backstore.NullBackstore;
import io.hostwide.tcm.backstore.RamBackstore;
import io.hostwide.tcm.backstore.RamBudget;
import io.hostwide.tcm.backstore.rbd.Rbd;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.spi.SharedOwnership;
import io.hostwide.tcm.backstore.rbd.RbdConfig;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.spi.ReservationStore;
import io.hostwide.tcm.lu.DeviceAttributes;
import io.hostwide.tcm.spi.Backstore;
import io.hostwide.tcm.spi.SpaceAllocationFailedException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/**
 * The backstores of serve's configuration, opened: the kind each {@code type} names, its device attributes, and the
 * RAM budget they draw pages from. Every problem names the configuration key it is about (a
 * {@link ConfigKeyException}), so that serve reports it with the file and line, as the loader does.
 */
public final class Backstores {
    private Backstores() {
    }

    /**
     * The configured budget, or the default for this heap. One larger than the old generation can hold besides
     * the rest of serve is refused: it would let pages run the heap out, the failure the budget exists to prevent.
     */
    public static RamBudget ramBudget(ServeConfig.Limits limits, long heapBytes, long oldGenBytes) {
        if (limits == null || limits.ramBudget() == null) {
            return new RamBudget(RamBudget.defaultLimit(heapBytes, oldGenBytes));
        }
        long bytes = Sizes.parseBytes("limits.ram_budget", limits.ramBudget());
        long room = RamBudget.maxLimit(oldGenBytes);
        if (bytes > room) {
            throw new ConfigKeyException("limits.ram_budget", " " + limits.ramBudget() + " is more than the heap"
                    + " can hold besides the rest of serve (at most " + MemoryBudget.mib(Math.max(0, room))
                    + ": the " + MemoryBudget.mib(oldGenBytes) + " old generation of a " + MemoryBudget.mib(heapBytes)
                    + " heap less 96 MiB): raise --memory or lower limits.ram_budget", null);
        }
        return new RamBudget(bytes);
    }

    /** Opens the backstore {@code b} describes; a problem is a {@link ConfigKeyException} naming its key. */
    static Backstore open(String name, ServeConfig.Backstore b, RamBudget ramBudget) {
        int bs = b.blockSize() == null ? 512 : b.blockSize();
        long size = b.size() == null ? 0 : Sizes.parseBytes("backstores." + name + ".size", b.size());
        return switch (b.type()) {
            case "ram" -> {
                try {
                    yield new RamBackstore(size, bs, ramBudget, Boolean.FALSE.equals(b.thin()));
                } catch (SpaceAllocationFailedException e) { // thick: its whole size is reserved now or never
                    throw new ConfigKeyException("backstores." + name + ".thin", ": false, but " + e.getMessage()
                            + " (make it thin, raise limits.ram_budget or --memory, or shrink it)", e);
                }
            }
            case "null" -> new NullBackstore(size, bs);
            case "file" -> {
                try {
                    FileBackstore.Options o = FileBackstore.Options.of(!Boolean.FALSE.equals(b.thin()))
                            .direct(Boolean.TRUE.equals(b.direct()));
                    yield new FileBackstore(Path.of(b.path()), size, bs, o);
                } catch (IOException e) {
                    throw new ConfigKeyException("backstores." + name + ".path", ": cannot open " + b.path() + ": "
                            + ConfigKeyException.reason(e), e);
                } catch (IllegalArgumentException e) { // e.g. block_size below the O_DIRECT alignment
                    throw new ConfigKeyException("backstores." + name, ": " + e.getMessage(), e);
                }
            }
            case "block" -> openBlock(name, b);
            case "rbd" -> openRbd(name, b, bs);
            default -> throw new IllegalArgumentException("backstores." + name + ".type '" + b.type() + "' is unknown");
        };
    }

    /**
     * A block device: its size and logical block size are the device's; {@code size} and {@code block_size}, when
     * given, are checks that the path names the device meant (a config written for one disk never exports another
     * of a different size unnoticed).
     */
    private static Backstore openBlock(String name, ServeConfig.Backstore b) {
        String at = "backstores." + name;
        BlockBackstore store;
        try {
            // "direct" left out: O_DIRECT where it works; "direct": true: O_DIRECT or a refusal saying why not
            store = new BlockBackstore(Path.of(b.path()), new BlockBackstore.Options(!Boolean.FALSE.equals(b.direct()),
                    !Boolean.FALSE.equals(b.thin()), Boolean.TRUE.equals(b.direct())));
        } catch (IOException e) {
            throw new ConfigKeyException(at + ".path", ": cannot open " + b.path() + ": " + ConfigKeyException.reason(e), e);
        } catch (IllegalArgumentException e) { // not a block device (anymore)
            throw new ConfigKeyException(at + ".path", ": " + e.getMessage(), e);
        }
        long bytes = store.blockCount() * store.blockSize();
        String mismatch = null;
        String key = null;
        if (b.size() != null && Sizes.parseBytes(at + ".size", b.size()) != bytes) {
            key = ".size";
            mismatch = " " + b.size() + " does not match the device: " + b.path() + " has " + bytes
                    + " bytes (leave \"size\" out to take the device's)";
        } else if (b.blockSize() != null && b.blockSize() != store.blockSize()) {
            key = ".block_size";
            mismatch = " " + b.blockSize() + " does not match the device's logical block size " + store.blockSize()
                    + " (leave \"block_size\" out to take the device's)";
        }
        if (mismatch != null) {
            closeQuietly(store);
            throw new ConfigKeyException(at + key, mismatch, null);
        }
        return store;
    }

    /**
     * A Ceph RBD image: its size is the image's (resize it with {@code rbd resize}: every nexus then gets CAPACITY
     * DATA HAS CHANGED); {@code queue_depth} bounds the operations in flight on it.
     */
    private static Backstore openRbd(String name, ServeConfig.Backstore b, int bs) {
        String at = "backstores." + name;
        String unavailable = Rbd.unavailable();
        if (unavailable != null) {
            throw new ConfigKeyException(at + ".type", ": " + unavailable, null);
        }
        RbdConfig config = rbdConfig(b);
        try {
            return Rbd.open(config, bs);
        } catch (IOException e) {
            throw new ConfigKeyException(at + ".image", ": cannot open " + config.spec()
                    + (b.conf() == null ? "" : " (conf " + b.conf() + ")") + ": " + e.getMessage(), e);
        }
    }

    private static RbdConfig rbdConfig(ServeConfig.Backstore b) {
        return new RbdConfig(b.conf(), b.pool(), b.image(), b.id(), b.keyring(),
                b.opTimeout() == null ? RbdConfig.DEFAULT_OP_TIMEOUT_SECONDS : b.opTimeout(), Map.of(),
                b.queueDepth() == null ? RbdConfig.DEFAULT_QUEUE_DEPTH : b.queueDepth());
    }

    /**
     * Keeps an rbd backstore's persistent and SPC-2 reservations in a RADOS object next to its image (issue 16
     * item 2), so that every gateway exporting the image, and this one after a restart, sees the same; nothing for
     * other kinds or {@code "reservations": "local"}. Call before the device is exported. The store's client is
     * the device's from then on and closes with it.
     *
     * @param gatewayId this serve process's id among the image's gateways (unique per process)
     * @return whether the reservations are shared
     */
    static boolean shareReservations(String name, ServeConfig.Backstore b, Device d, String gatewayId) {
        if (!b.sharedReservations()) {
            return false;
        }
        String at = "backstores." + name + ".reservations";
        RbdConfig config = rbdConfig(b);
        Rbd.SharedReservationStore store;
        try {
            store = Rbd.openReservationStore(config);
        } catch (IOException e) {
            throw new ConfigKeyException(at, ": cannot reach the shared reservation state of " + config.spec() + ": "
                    + e.getMessage() + " (\"reservations\": \"local\" keeps them in this gateway only)", e);
        }
        if (d.backstore() instanceof SharedOwnership.Source src && src.sharedOwnership() instanceof SharedOwnership o) {
            // fencing this gateway as a silent watcher then blocklists its image client too (issue 16)
            store.imageClient(o::clientAddress);
            o.onClientChange(store::refreshWatchers);
        }
        try {
            d.reservations().share(store, gatewayId);
        } catch (ReservationStore.UnavailableException e) {
            store.close();
            throw new ConfigKeyException(at, ": cannot read the shared reservation state of " + config.spec()
                    + " (" + store.objectName() + "): " + e.getMessage(), e);
        }
        return true;
    }

    private static void closeQuietly(Backstore store) {
        try {
            store.close();
        } catch (IOException e) {
            // refused anyway; the open error is what the operator needs
        }
    }

    /** The device attributes of {@code b} over {@code store} (a block device's own geometry unless configured). */
    static DeviceAttributes attributes(String name, ServeConfig.Backstore b, Backstore store) {
        DeviceAttributes a = new DeviceAttributes()
                .thinProvisioning(!Boolean.FALSE.equals(b.thin()))
                .removable(Boolean.TRUE.equals(b.removable()))
                .writeProtect(Boolean.TRUE.equals(b.writeProtect()))
                .nonRotational(true);
        if (store instanceof BlockBackstore blk) { // what the kernel says, unless configured otherwise below
            BlockDevice dev = blk.device();
            a.nonRotational(!dev.rotational())
                    .logicalBlocksPerPhysicalBlockExponent(
                            Integer.numberOfTrailingZeros(dev.physicalBlockSize() / dev.logicalBlockSize()))
                    .writeCacheEnabled(dev.writeBack())
                    .unmapGranularity(blk.unmapGranularityBlocks());
        }
        if (b.physicalBlockSize() != null) { // checked by ServeConfigLoader: block_size times a power of two
            int bs = store.blockSize(); // a block device's own logical block size, which the loader cannot know
            int pbs = b.physicalBlockSize();
            if (pbs < bs || pbs % bs != 0 || Integer.bitCount(pbs / bs) != 1) {
                throw new ConfigKeyException("backstores." + name + ".physical_block_size", " " + pbs
                        + " must be the device's logical block size " + bs + " times a power of two", null);
            }
            a.logicalBlocksPerPhysicalBlockExponent(Integer.numberOfTrailingZeros(pbs / bs));
        }
        if (b.sanitizeRate() != null) {
            a.sanitizeRate(Sizes.parseBytes("backstores." + name + ".sanitize_rate", b.sanitizeRate()));
        }
        if (b.writeCache() != null) {
            a.writeCacheEnabled(b.writeCache());
        }
        if (b.queueDepth() != null) {
            a.queueDepth(b.queueDepth());
        }
        if (store instanceof FileBackstore f) { // holes are punched in whole filesystem blocks
            a.unmapGranularity(f.unmapGranularityBlocks());
        }
        if (store instanceof SharedOwnership.Source src) { // an RBD image: one identity on every gateway
            SharedOwnership o = src.sharedOwnership();
            if (o != null) {
                a.unitSerial(Device.serialOf(o.identity()));
            }
        }
        return a;
    }

    /** The startup line's words for {@code b}'s flags. */
    static String flags(ServeConfig.Backstore b) {
        StringBuilder sb = new StringBuilder();
        sb.append(Boolean.FALSE.equals(b.thin()) ? ", thick" : ", thin");
        if (b.physicalBlockSize() != null) {
            sb.append(", physical blocks of ").append(b.physicalBlockSize());
        }
        if (Boolean.TRUE.equals(b.removable())) {
            sb.append(", removable");
        }
        if (Boolean.TRUE.equals(b.writeProtect())) {
            sb.append(", write-protected");
        }
        return sb.toString();
    }
}
