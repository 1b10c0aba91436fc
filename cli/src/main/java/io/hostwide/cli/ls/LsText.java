package io.hostwide.cli.ls;

import io.hostwide.management.util.Sizes;

import java.util.Locale;

/**
 * lsscsi's line layout: {@code [H:C:T:L]}, type, vendor (8), product (16), revision (4), size, device name; with
 * {@code --verbose} one indented line of attributes under each device.
 */
final class LsText {
    private LsText() {
    }

    static void append(StringBuilder sb, String indent, LsDevice d) {
        String addr = d.hctl() == null ? "[-]" : "[" + d.hctl() + "]";
        sb.append(indent).append(String.format(Locale.ROOT, "%-13s %-8s %-8s %-16s %-4s  %9s  %s", addr, d.type(),
                dash(d.vendor()), dash(d.product()), dash(d.revision()),
                d.sizeBytes() == 0 && d.name() == null ? "-" : Sizes.formatBytes(d.sizeBytes()).replace(" ", ""),
                dash(d.name()))).append('\n');
        LsDevice.Detail x = d.detail();
        if (x == null) {
            return;
        }
        sb.append(indent).append("  ");
        if (x.queueDepth() != null) {
            sb.append("queue_depth=").append(x.queueDepth()).append(" can_queue=").append(x.canQueue()).append(' ');
        }
        sb.append("nr_hw_queues=").append(x.nrHwQueues())
                .append(" host_tagset=").append(bit(x.hostTagset()))
                .append(" rotational=").append(bit(x.rotational()))
                .append(" scheduler=").append(x.scheduler())
                .append(" logical_block_size=").append(x.logicalBlockSize());
        if (x.thinProvisioned() != null) {
            sb.append(" thin_provisioning=").append(bit(x.thinProvisioned()))
                    .append(" lbpu=").append(bit(x.lbpu())).append(" lbpws=").append(bit(x.lbpws()))
                    .append(" max_transfer=").append(x.maxTransferBlocks() == 0 ? "unreported"
                            : x.maxTransferBlocks() + " blocks");
        }
        sb.append('\n');
    }

    private static String dash(String s) {
        return s == null || s.isEmpty() ? "-" : s;
    }

    private static int bit(boolean b) {
        return b ? 1 : 0;
    }
}
