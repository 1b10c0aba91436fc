package io.hostwide.iscsi.server;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * A connection's tasks by Initiator Task Tag (an ITT names one task at a time, RFC 7143 §11.17.1) and the pool they
 * are reused from. This object's monitor guards both; a thread that holds a task's monitor may take this one, never
 * the other way round (the reader adds Data-Out under the task's monitor, then looks tasks up).
 */
final class ConnectionTasks {
    /** Initial capacity; the map grows. */
    private static final int EXPECTED = 64;
    /** R2T slots per task: at most this many R2Ts are open at once, whatever MaxOutstandingR2T allows. */
    private static final int R2T_SLOTS = 16;

    private final Connection conn;
    private final IntMap<Task> byItt = new IntMap<>(EXPECTED);
    private final ArrayDeque<Task> free = new ArrayDeque<>();

    ConnectionTasks(Connection conn) {
        this.conn = conn;
    }

    /** A pooled task entered under {@code itt}, or null when a task with that ITT is still open. */
    synchronized Task claim(int itt) {
        if (byItt.get(itt) != null) {
            return null;
        }
        Task t = free.isEmpty() ? new Task(conn, R2T_SLOTS) : free.pop();
        byItt.put(itt, t);
        return t;
    }

    /** The task of {@code itt}, or null. */
    synchronized Task get(int itt) {
        return byItt.get(itt);
    }

    /** Removes whatever task {@code itt} names; returns it (null when none). */
    synchronized Task remove(int itt) {
        return byItt.remove(itt);
    }

    /** Removes {@code t} if it still waits for Data-Out under its ITT; true when this call removed it. */
    synchronized boolean removeWaiting(Task t) {
        if (t.state != Task.WAITING_DATA || byItt.get(t.itt) != t) {
            return false;
        }
        byItt.remove(t.itt);
        return true;
    }

    /** Returns an ended task to the pool. */
    synchronized void free(Task t) {
        free.push(t);
    }

    /** Tasks waiting for Data-Out that {@code match} selects (tested under this monitor). */
    synchronized List<Task> waiting(Predicate<Task> match) {
        List<Task> out = new ArrayList<>();
        byItt.forEach(t -> {
            if (t.state == Task.WAITING_DATA && match.test(t)) {
                out.add(t);
            }
        });
        return out;
    }
}
