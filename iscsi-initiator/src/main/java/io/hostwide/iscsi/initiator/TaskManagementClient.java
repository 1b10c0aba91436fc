package io.hostwide.iscsi.initiator;

import io.hostwide.iscsi.pdu.LogoutRequest;
import io.hostwide.iscsi.pdu.TaskManagementRequest;
import io.hostwide.iscsi.spec.Codes;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Task management requests (RFC 7143 §11.5) and the session logout (§11.14), each waited for with a timeout. Their
 * ITTs have the high bit set, so they never collide with command ITTs ({@link TaskTable}) or the reserved tag.
 * Error handling is rare and runs on a work thread, so a map of waiters is fine here.
 */
final class TaskManagementClient {
    /** The answer when no response came (timeout, or the connection failed first). */
    static final int NO_RESPONSE = -1;

    private final InitiatorSession session;
    private final long timeoutMillis;
    private final AtomicInteger tags = new AtomicInteger();
    private final Map<Integer, CompletableFuture<Integer>> waiting = new ConcurrentHashMap<>();

    TaskManagementClient(InitiatorSession session, long timeoutMillis) {
        this.session = session;
        this.timeoutMillis = timeoutMillis;
    }

    int nextItt() {
        return 0x8000_0000 | (tags.incrementAndGet() & 0x7fff_fffe);   // bit 0 clear: never 0xffffffff
    }

    /** Sends a TMF as an immediate PDU on {@code on}; returns the response code or {@link #NO_RESPONSE}. */
    int request(InitiatorSession.Live l, IscsiConnection on, int function, long lun, int refItt, int refCmdSn) {
        int itt = nextItt();
        CompletableFuture<Integer> f = new CompletableFuture<>();
        waiting.put(itt, f);
        try {
            on.send(new TaskManagementRequest(true, function, lun, itt, refItt, l.window().current(), on.expStatSn(),
                    refCmdSn, 0));
            return await(f, timeoutMillis);
        } catch (IOException e) {
            session.connectionFailed(on, "connection " + on.cid + ": " + e.getMessage());
            return NO_RESPONSE;
        } finally {
            waiting.remove(itt);
        }
    }

    /** Logout "close the session" (RFC 7143 §11.14.1 reason 0) on the leading connection; best effort, 2 s. */
    void logout(InitiatorSession.Live l) {
        int itt = nextItt();
        CompletableFuture<Integer> f = new CompletableFuture<>();
        waiting.put(itt, f);
        IscsiConnection c = l.conns()[0];
        try {
            c.send(new LogoutRequest(true, Codes.LOGOUT_CLOSE_SESSION, itt, c.cid, l.window().current(),
                    c.expStatSn()));
            await(f, Math.min(2000, timeoutMillis));
        } catch (IOException e) {
            // the target is gone already: closing the sockets is all that is left
        } finally {
            waiting.remove(itt);
        }
    }

    void done(int itt, int response) {
        CompletableFuture<Integer> f = waiting.get(itt);
        if (f != null) {
            f.complete(response);
        }
    }

    /** The session failed: nobody will answer the outstanding requests. */
    void failAll() {
        for (CompletableFuture<Integer> f : waiting.values()) {
            f.complete(NO_RESPONSE);
        }
    }

    private static int await(CompletableFuture<Integer> f, long millis) {
        try {
            return f.get(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return NO_RESPONSE;
        } catch (ExecutionException | TimeoutException e) {
            return NO_RESPONSE;
        }
    }
}
