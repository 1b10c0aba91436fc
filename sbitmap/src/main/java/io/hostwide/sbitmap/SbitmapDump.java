package io.hostwide.sbitmap;

import java.util.List;

/**
 * What blk-mq debugfs prints for an {@code sbitmap_queue} (digest §1.10), with
 * the kernel's field names.
 *
 * @param wsActive  registered waiters ({@code ws_active})
 * @param ws        waiters queued on each of the eight wait queues
 */
public record SbitmapDump(int depth, int busy, int cleared, int bitsPerWord, int mapNr,
                          List<Integer> allocHint, int wakeBatch, int wakeIndex, int wsActive,
                          List<Integer> ws, boolean roundRobin, int minShallowDepth) {

    /** The debugfs text form, one {@code name=value} per line. */
    public String toDebugfsText() {
        StringBuilder sb = new StringBuilder();
        sb.append("depth=").append(depth).append('\n');
        sb.append("busy=").append(busy).append('\n');
        sb.append("cleared=").append(cleared).append('\n');
        sb.append("bits_per_word=").append(bitsPerWord).append('\n');
        sb.append("map_nr=").append(mapNr).append('\n');
        sb.append("alloc_hint={");
        for (int i = 0; i < allocHint.size(); i++) {
            sb.append(i == 0 ? "" : ", ").append(allocHint.get(i));
        }
        sb.append("}\n");
        sb.append("wake_batch=").append(wakeBatch).append('\n');
        sb.append("wake_index=").append(wakeIndex).append('\n');
        sb.append("ws_active=").append(wsActive).append('\n');
        sb.append("ws={");
        for (int i = 0; i < ws.size(); i++) {
            sb.append(i == 0 ? "" : ", ").append(ws.get(i));
        }
        sb.append("}\n");
        sb.append("round_robin=").append(roundRobin ? 1 : 0).append('\n');
        sb.append("min_shallow_depth=").append(minShallowDepth).append('\n');
        return sb.toString();
    }
}
