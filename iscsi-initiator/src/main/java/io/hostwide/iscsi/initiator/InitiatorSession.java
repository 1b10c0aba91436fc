package io.hostwide.iscsi.initiator;

import io.hostwide.iscsi.login.NegotiatedParameters;
import io.hostwide.scsi.mid.EhResult;
import io.hostwide.scsi.mid.HostByte;
import io.hostwide.scsi.mid.LowLevelDriver;
import io.hostwide.scsi.mid.ScsiCmnd;
import io.hostwide.scsi.mid.ScsiDevice;
import io.hostwide.scsi.mid.ScsiHost;
import io.hostwide.scsi.mid.ScsiTarget;
import io.hostwide.scsi.spec.LunAddress;
import io.hostwide.iscsi.spec.TaskManagement;
import java.io.IOException;
import java.util.function.Predicate;
import java.util.logging.Logger;

/**
 * One iSCSI session at error recovery level 0 (RFC 7143 §7.1.5, §6.3.5): its connections, command window, tasks and
 * recovery. A connection failure fails the whole session: outstanding commands complete with
 * {@code DID_TRANSPORT_DISRUPTED} (the midlayer retries each once), the host is blocked, and the session is
 * reinstated by a new leading login with the same ISID after DefaultTime2Wait; if that keeps failing for the
 * recovery timeout, queued and new commands fail fast until a login succeeds. Host reset does the same at once.
 */
final class InitiatorSession {
    private static final Logger LOG = Logger.getLogger(InitiatorSession.class.getName());

    enum State { LOGGED_IN, RECOVERING, FAILED, CLOSED }

    /** The logged-in session of one generation; replaced as a whole on reinstatement. */
    record Live(int generation, IscsiConnection[] conns, SessionWindow window, NegotiatedParameters params) {}

    final InitiatorConfig cfg;
    final InitiatorStats stats = new InitiatorStats();
    private final TaskTable table = new TaskTable();
    private final DataOutSender dataOut = new DataOutSender(stats);
    private final CommandSender commands = new CommandSender(dataOut, stats);
    private final TargetPduHandler handler = new TargetPduHandler(this, table, dataOut, stats);
    private final SessionLogin login;
    private final TaskManagementClient tmf;
    /** Null while not logged in; volatile for the issue/sweep handshake (see {@link IscsiTask#publish}). */
    private volatile Live live;
    private State state = State.RECOVERING;
    private int generation;
    /** Connections of the first login: the host's hardware queues; a reinstated session asks for as many. */
    private int hwQueues;
    private volatile ScsiHost host;
    private Thread recovery;
    private long recoveryDeadline;
    private final java.util.concurrent.atomic.AtomicLong reinstatements = new java.util.concurrent.atomic.AtomicLong();

    private InitiatorSession(InitiatorConfig cfg) {
        this.cfg = cfg;
        this.login = new SessionLogin(this, cfg);
        this.tmf = new TaskManagementClient(this, cfg.tmfTimeoutMillis);
    }

    /** Logs in (leading connection plus as many more as the target grants, up to the configured number). */
    static InitiatorSession open(InitiatorConfig cfg) throws IOException {
        cfg.validate();
        InitiatorSession s = new InitiatorSession(cfg);
        Live l = s.login.login(1, cfg.connections);
        synchronized (s) {
            s.generation = 1;
            s.hwQueues = l.conns().length;
            s.live = l;
            s.state = State.LOGGED_IN;
        }
        s.start(l);
        NopOutPinger.start(s, cfg);
        return s;
    }

    /** An ITT for a NOP-Out ping (from the task management tag space: never a command's). */
    int pingItt() {
        return tmf.nextItt();
    }

    void attach(ScsiHost h) {
        this.host = h;
    }

    TargetPduHandler handler() {
        return handler;
    }

    Live live() {
        return live;
    }

    synchronized State state() {
        return state;
    }

    int taskSlots() {
        return table.slotsCreated();
    }

    long reinstatements() {
        return reinstatements.get();
    }

    private void start(Live l) {
        for (IscsiConnection c : l.conns()) {
            c.start("iscsi-rx-" + cfg.url.host() + ":" + cfg.url.port() + "-cid" + c.cid);
        }
    }

    // ---- commands ----

    /** {@code queuecommand}. */
    int queue(ScsiCmnd cmd) {
        Live l = live;
        if (l == null) {
            return notLoggedIn(cmd);
        }
        if (cmd.device().target().id() != 0 || cmd.device().target().channel() != 0) {
            cmd.done(HostByte.DID_BAD_TARGET, 0, null, 0, 0, cmd.transferLength());   // one target per session
            return LowLevelDriver.OK;
        }
        IscsiTask t = table.taskFor(cmd);
        if (t == null) {
            return LowLevelDriver.HOST_BUSY;
        }
        long sn = l.window().take();
        if (sn == Long.MIN_VALUE) {
            // CmdSN window closed (RFC 7143 §4.2.2.1): the target's limit, so target busy as Linux's libiscsi answers
            // (SCSI_MLQUEUE_TARGET_BUSY); the next completion, which carries the new MaxCmdSN, re-runs the queues.
            stats.windowClosed.increment();
            return LowLevelDriver.TARGET_BUSY;
        }
        IscsiConnection c = l.conns()[cmd.hwQueue() % l.conns().length];
        int itt = table.nextItt(t);
        t.cmdSn = (int) sn;
        t.lun = LunAddress.encode(cmd.device().lun());
        t.device = cmd.device();
        t.conn = c;
        t.received = 0;
        t.publish(itt);
        try {
            commands.send(c, t, itt);
        } catch (IOException e) {
            connectionFailed(c, "connection " + c.cid + ": " + e.getMessage());
        }
        // Volatile read after the volatile publish: if the session died meanwhile and its sweep missed this issue,
        // this end fails it (claim decides who).
        if (live != l && table.claim(t, itt)) {
            cmd.done(HostByte.DID_TRANSPORT_DISRUPTED, 0, null, 0, 0, cmd.transferLength());
        }
        return LowLevelDriver.OK;
    }

    /**
     * {@code mq_poll}: the calling thread receives on the connection of hardware queue {@code hwQueue} (see
     * {@link IscsiConnection#poll}); -1 when not logged in or another thread receives there now.
     */
    int poll(int hwQueue, long timeoutNanos) {
        Live l = live;
        if (l == null) {
            return -1;
        }
        int n = l.conns()[hwQueue % l.conns().length].poll(timeoutNanos);
        if (n > 0) {
            stats.polledPdus.add(n);
        }
        return n;
    }

    /** {@code commit_rqs}: writes what the connection of hardware queue {@code hwQueue} held back for a batch. */
    void commit(int hwQueue) {
        Live l = live;
        if (l == null) {
            return;   // the session failed: held-back commands were swept with it
        }
        IscsiConnection c = l.conns()[hwQueue % l.conns().length];
        try {
            c.commit();
        } catch (IOException e) {
            connectionFailed(c, "connection " + c.cid + ": " + e.getMessage());
        }
    }

    private int notLoggedIn(ScsiCmnd cmd) {
        State s = state();
        if (s == State.RECOVERING || s == State.LOGGED_IN) {
            return LowLevelDriver.HOST_BUSY;
        }
        cmd.done(s == State.FAILED ? HostByte.DID_TRANSPORT_FAILFAST : HostByte.DID_NO_CONNECT, 0, null, 0, 0,
                cmd.transferLength());
        return LowLevelDriver.OK;
    }

    /** Ends issue {@code itt} of {@code t} with a result, if nothing ended it first. */
    void complete(IscsiTask t, int itt, int hostByte, int status, byte[] sense, int off, int len, int resid) {
        if (table.claim(t, itt)) {
            t.cmd.done(hostByte, status, sense, off, len, resid);
        }
    }

    /** Fails every outstanding issue matching {@code which} with {@code hostByte}; EH-owned ones stay the EH's. */
    void sweep(Predicate<IscsiTask> which, int hostByte) {
        table.forEachOutstanding(which, (t, itt) -> complete(t, itt, hostByte, 0, null, 0, 0, t.cmd.transferLength()));
    }

    void tmfDone(int itt, int response) {
        tmf.done(itt, response);
    }

    // ---- failure and recovery ----

    /** A connection broke (I/O error, bad PDU, protocol violation): the ERL 0 session fails as a whole. */
    void connectionFailed(IscsiConnection c, String why) {
        Live l;
        synchronized (this) {
            l = live;
            if (l == null || c.generation != l.generation() || state != State.LOGGED_IN) {
                c.close();
                return;
            }
            enterRecovery();
        }
        LOG.warning("iSCSI session to " + cfg.url + " failed (" + why + "); reinstating");
        ScsiHost h = host;
        if (h != null) {
            h.blockRequests(true);   // scsi_block_requests until the session is back
        }
        teardown(l, HostByte.DID_TRANSPORT_DISRUPTED);
        startRecovery(l.params().defaultTime2Wait() * 1000L);
    }

    private void teardown(Live l, int hostByte) {
        for (IscsiConnection c : l.conns()) {
            c.close();
        }
        sweep(t -> true, hostByte);
        tmf.failAll();
    }

    /** Starts the recovery thread unless one is running: it re-checks the state under this lock before it exits. */
    private synchronized void startRecovery(long delayMillis) {
        if (state == State.CLOSED || recovery != null) {
            return;
        }
        recovery = new Thread(() -> recover(delayMillis), "iscsi-recovery-" + cfg.url.host());
        recovery.setDaemon(true);
        recovery.start();
    }

    /**
     * Logs in again until the session is logged in or closed; gives up on queued I/O after the recovery timeout but
     * keeps trying. A failure that happens while this thread is still running is picked up by its next round.
     */
    private void recover(long delayMillis) {
        long backoff = 100;
        if (!sleep(delayMillis)) {
            exitRecovery();
            return;
        }
        for (;;) {
            int gen;
            synchronized (this) {
                if (state == State.LOGGED_IN || state == State.CLOSED) {
                    recovery = null;
                    return;
                }
                gen = ++generation;
            }
            try {
                if (install(login.login(gen, hwQueues))) {
                    LOG.info("iSCSI session to " + cfg.url + " reinstated");
                }
                backoff = 100;
                continue;   // the loop's check ends the thread, or recovers a failure that came meanwhile
            } catch (IOException e) {
                LOG.warning("iSCSI relogin to " + cfg.url + " failed: " + e.getMessage());
                giveUpIfDue(e);
            }
            if (!sleep(backoff)) {
                exitRecovery();
                return;
            }
            backoff = Math.min(backoff * 2, 2000);
        }
    }

    private synchronized void exitRecovery() {
        recovery = null;
    }

    /** The session leaves LOGGED_IN (caller holds the lock): the recovery timeout starts now. */
    private void enterRecovery() {
        live = null;
        state = State.RECOVERING;
        recoveryDeadline = System.nanoTime() + cfg.recoveryTimeoutMillis * 1_000_000L;
    }

    private boolean install(Live l) {
        synchronized (this) {
            if (state == State.CLOSED) {
                for (IscsiConnection c : l.conns()) {
                    c.close();
                }
                return false;
            }
            live = l;
            state = State.LOGGED_IN;
            notifyAll();
        }
        reinstatements.incrementAndGet();
        start(l);
        ScsiHost h = host;
        if (h != null) {
            h.blockRequests(false);
        }
        return true;
    }

    private void giveUpIfDue(IOException e) {
        boolean permanent = e instanceof LoginException le && le.permanent();
        synchronized (this) {
            if (state != State.RECOVERING || (System.nanoTime() - recoveryDeadline < 0 && !permanent)) {
                return;
            }
            state = State.FAILED;   // queued and new I/O now fails fast; logins continue in the background
            notifyAll();
        }
        ScsiHost h = host;
        if (h != null) {
            h.blockRequests(false);
        }
    }

    private static boolean sleep(long millis) {
        try {
            Thread.sleep(millis);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    // ---- error handling (midlayer callbacks, on its work thread) ----

    EhResult abort(ScsiCmnd cmd) {
        if (!(cmd.lldPrivate() instanceof IscsiTask t)) {
            return EhResult.SUCCESS;
        }
        int itt = t.itt();
        if (itt == IscsiTask.NONE) {
            return EhResult.SUCCESS;   // already ended: nothing of it is left here
        }
        Live l = live;
        if (l == null || t.conn == null || t.conn.generation != l.generation()) {
            return EhResult.FAILED;
        }
        int r = tmf.request(l, t.conn, TaskManagement.ABORT_TASK, t.lun, itt, t.cmdSn);
        if (r == TaskManagement.FUNCTION_COMPLETE || r == TaskManagement.TASK_DOES_NOT_EXIST) {
            table.claim(t, itt);   // the issue is the error handler's now: never completed from here
            return EhResult.SUCCESS;
        }
        return EhResult.FAILED;
    }

    EhResult lunReset(ScsiDevice sdev) {
        return reset(TaskManagement.LOGICAL_UNIT_RESET, LunAddress.encode(sdev.lun()), t -> t.device == sdev);
    }

    EhResult targetReset(ScsiTarget starget) {
        return reset(TaskManagement.TARGET_WARM_RESET, 0, t -> t.device != null && t.device.target() == starget);
    }

    /** A LUN or target reset; the target ends the scope's tasks without responses (ERL 0), so they end here. */
    private EhResult reset(int function, long lun, Predicate<IscsiTask> scope) {
        Live l = live;
        if (l == null) {
            return EhResult.FAILED;
        }
        int r = tmf.request(l, l.conns()[0], function, lun, IscsiTask.NONE, 0);
        if (r != TaskManagement.FUNCTION_COMPLETE) {
            return EhResult.FAILED;
        }
        sweep(scope, HostByte.DID_RESET);
        return EhResult.SUCCESS;
    }

    /** Host reset: drop the session and log in again (session reinstatement, same ISID), waiting for the result. */
    EhResult hostReset() {
        Live l = null;
        synchronized (this) {
            if (state == State.CLOSED) {
                return EhResult.FAILED;
            }
            if (state == State.LOGGED_IN) {
                l = live;
                enterRecovery();
            }
        }
        if (l != null) {
            LOG.warning("iSCSI host reset: reinstating the session to " + cfg.url);
            teardown(l, HostByte.DID_RESET);
            startRecovery(0);
        }
        long deadline = System.nanoTime() + (cfg.recoveryTimeoutMillis + 1000) * 1_000_000L;
        synchronized (this) {
            while (state == State.RECOVERING) {
                long left = (deadline - System.nanoTime()) / 1_000_000L;
                if (left <= 0) {
                    break;
                }
                try {
                    wait(left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            return state == State.LOGGED_IN ? EhResult.SUCCESS : EhResult.FAILED;
        }
    }

    /** Logs out (best effort) and closes; outstanding commands end with {@code DID_NO_CONNECT}. */
    void close() {
        Live l;
        Thread r;
        synchronized (this) {
            if (state == State.CLOSED) {
                return;
            }
            state = State.CLOSED;
            l = live;
            live = null;
            r = recovery;
            notifyAll();
        }
        if (r != null) {
            r.interrupt();
        }
        if (l != null) {
            tmf.logout(l);
            teardown(l, HostByte.DID_NO_CONNECT);
        }
        sweep(t -> true, HostByte.DID_NO_CONNECT);
        ScsiHost h = host;
        if (h != null) {
            h.blockRequests(false);   // requests held back during recovery now fail with DID_NO_CONNECT
        }
    }
}
