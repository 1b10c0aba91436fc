package io.hostwide.tcm.lu;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * EXTENDED COPY results the copy manager of one LU holds for RECEIVE COPY RESULTS (SPC-4 §6.18), keyed by I_T
 * nexus and LIST IDENTIFIER, and the list identifiers in use (SPC-4 §6.4.1: a second EXTENDED COPY with a list
 * identifier still running on the same nexus is OPERATION IN PROGRESS). Bounded: the oldest results go first.
 */
public final class CopyResults {
    /** Results kept per LU. */
    static final int LIMIT = 256;

    /**
     * One finished (or running) copy.
     *
     * @param status            COPY MANAGER STATUS: 0 in progress, 1 completed without errors, 2 with errors
     * @param segmentsProcessed SEGMENTS PROCESSED
     * @param bytesTransferred  bytes written to copy destinations
     * @param commandStatus     SCSI status of the EXTENDED COPY command
     * @param sense             its sense data (empty when GOOD)
     */
    public record Result(int status, int segmentsProcessed, long bytesTransferred, int commandStatus, byte[] sense) {}

    private final Map<Long, Result> results = new ConcurrentHashMap<>();
    private final Map<Long, Long> order = new ConcurrentHashMap<>();
    private long sequence;

    public static long key(long sessionId, int listId) { return sessionId << 8 | (listId & 0xFF); }

    /** Claims a list identifier for a running copy; false when one with it is running already. */
    public synchronized boolean begin(long key) {
        Result r = results.get(key);
        if (r != null && r.status() == 0) {
            return false;
        }
        results.put(key, RUNNING);
        return true;
    }

    private static final Result RUNNING = new Result(0, 0, 0, 0, new byte[0]);

    public synchronized void finish(long key, Result r) {
        results.put(key, r);
        order.put(key, ++sequence);
        if (order.size() > LIMIT) {
            long oldest = Long.MAX_VALUE;
            long victim = -1;
            for (Map.Entry<Long, Long> e : order.entrySet()) {
                if (e.getValue() < oldest) {
                    oldest = e.getValue();
                    victim = e.getKey();
                }
            }
            order.remove(victim);
            results.remove(victim);
        }
    }

    public Result get(long key) { return results.get(key); }
}
