package io.hostwide.tcm.sbc;

import io.hostwide.tcm.lu.DeviceAttributes;
import io.hostwide.tcm.spi.Backstore;

import java.io.IOException;

/**
 * Deallocation of an LBA range at the device's unmap granularity (SBC-4 §4.7.3.5, §6.6.4): the backstore is asked
 * to deallocate only whole granules (physical blocks, or the configured OPTIMAL UNMAP GRANULARITY, offset by the
 * UNMAP GRANULARITY ALIGNMENT). The blocks of a partial granule at either end stay mapped, which SBC-4 allows; with
 * LBPRZ = 1 they are written with zeros so that every block of the range reads back as a deallocated block would.
 */
final class Deallocate {
    private Deallocate() {}

    static void range(Backstore store, DeviceAttributes a, long lba, long blocks) throws IOException {
        long g = a.effectiveUnmapGranularity();
        if (g <= 1) {
            store.unmap(lba, blocks);
            return;
        }
        long align = a.unmapGranularityAlignment() % g;
        long end = lba + blocks;
        long first = roundUp(lba, g, align);
        long last = roundDown(end, g, align);
        if (first >= last) { // no whole granule inside the range
            partial(store, lba, blocks);
            return;
        }
        partial(store, lba, first - lba);
        store.unmap(first, last - first);
        partial(store, last, end - last);
    }

    private static void partial(Backstore store, long lba, long blocks) throws IOException {
        if (blocks > 0 && store.unmapReturnsZeros()) {
            store.writeZeros(lba, blocks);
        }
    }

    /** The first granule boundary at or above {@code lba}; boundaries are {@code align + k * g}. */
    static long roundUp(long lba, long g, long align) {
        long r = Math.floorMod(lba - align, g);
        return r == 0 ? lba : lba + (g - r);
    }

    /** The last granule boundary at or below {@code lba}. */
    static long roundDown(long lba, long g, long align) {
        return lba - Math.floorMod(lba - align, g);
    }
}
