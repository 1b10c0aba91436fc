package io.hostwide.loop;

import io.hostwide.scsi.mid.EhResult;
import io.hostwide.scsi.mid.HostByte;
import io.hostwide.scsi.mid.LowLevelDriver;
import io.hostwide.scsi.mid.ScsiCmnd;
import io.hostwide.scsi.mid.ScsiDevice;
import io.hostwide.scsi.mid.ScsiHost;
import io.hostwide.scsi.mid.ScsiTarget;
import io.hostwide.scsi.spec.BigEndian;
import io.hostwide.scsi.spec.FixedSense;
import io.hostwide.scsi.spec.LunAddress;
import io.hostwide.scsi.spec.ScsiOpcode;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.scsi.spec.SenseKey;
import io.hostwide.scsi.spec.TaskAttribute;
import io.hostwide.tcm.core.Session;
import io.hostwide.tcm.spi.Fabric;
import io.hostwide.tcm.spi.TargetCommand;
import io.hostwide.tcm.tmf.TaskManagement;
import io.hostwide.tcm.tmf.TmfFunction;
import io.hostwide.tcm.tmf.TmfResponse;
import io.hostwide.tcm.tmf.TmfResult;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The loop fabric's low-level driver ({@code tcm_loop_queuecommand}): each SCSI command becomes a
 * {@link TargetCommand} on the host's session to the addressed target and goes into the target core in process;
 * Data-Out is the caller's buffer itself, Data-In is copied into it. Completion is inline, or after
 * {@code delay}/{@code ndelay} (+ seek time on rotational LUNs) from the {@link CompletionTimer} of the command's
 * hardware queue, never from a
 * sleeping submitter. Error injection per {@link ErrorInjector}. Aborts and resets take back commands still held
 * here (pending in the timer, or swallowed by timeout injection); the target core's own execution is inline for RAM
 * backstores, so nothing is left running there; each error-handling step is also sent to the target core as the
 * matching task management function (ABORT TASK, LOGICAL UNIT RESET, TARGET WARM RESET, I_T NEXUS RESET), as
 * tcm_loop does, so the LUN reports the reset's unit attention afterwards.
 */
final class LoopLld implements LowLevelDriver, Fabric {
    private static final int DIR_IN = TargetCommand.DIR_READ;
    private static final int DIR_OUT = TargetCommand.DIR_WRITE;

    private final String name;
    /** Session to target id i (the I_T nexus of this host to that target). */
    private final Session[] sessions;
    /**
     * {@code delay}/{@code ndelay}: scsi_debug's attribute is writable at run time, so this is too
     * ({@link LoopHba#setDelayNanos}); a command uses the value read when it is queued or answered.
     */
    private volatile long delayNanos;
    private final long seekNanos;
    private final long xferBytesPerSec;
    private final long commandNanos;
    private final ErrorInjector injector;
    private final CompletionTimers timers;
    /** The target core's task manager, for the error handler's aborts and resets. */
    private final TaskManagement taskManagement;
    private final Map<ScsiDevice, SeekModel> seek = new ConcurrentHashMap<>();
    /** Every task ever created (one per command slot), for resets. */
    private final CopyOnWriteArrayList<LoopTask> tasks = new CopyOnWriteArrayList<>();
    private final byte[] scratchSense = new byte[FixedSense.LENGTH];
    private final AtomicInteger taskIds = new AtomicInteger();
    /** How long error handling waits for the target core's task management answer. */
    private static final long TMF_TIMEOUT_SECONDS = 30;

    LoopLld(String name, TaskManagement taskManagement, Session[] sessions, long delayNanos, long seekNanos,
            long xferBytesPerSec, long commandNanos, ErrorInjector injector, CompletionTimers timers) {
        this.name = name;
        this.taskManagement = taskManagement;
        this.sessions = sessions;
        this.delayNanos = delayNanos;
        this.seekNanos = seekNanos;
        this.xferBytesPerSec = xferBytesPerSec;
        this.commandNanos = commandNanos;
        this.injector = injector;
        this.timers = timers;
    }

    @Override
    public String name() {
        return name;
    }

    long delayNanos() {
        return delayNanos;
    }

    void delayNanos(long ns) {
        delayNanos = ns;
    }

    @Override
    public int protocolIdentifier() {
        return 0x5;   // tcm_loop reports the protocol of the emulated transport; we report iSCSI's like the rest of hostwide
    }

    private LoopTask task(ScsiCmnd cmd) {
        Object p = cmd.lldPrivate();
        if (p instanceof LoopTask t) {
            return t;
        }
        LoopTask t = new LoopTask(cmd, taskIds.getAndIncrement());
        cmd.lldPrivate(t);
        if (!cmd.isInternal()) {
            tasks.add(t);   // block-request slots live as long as the host; internal commands are one-offs
        }
        return t;
    }

    @Override
    public int queueCommand(ScsiCmnd cmd) {
        LoopTask t = task(cmd);
        int inject = cmd.isInternal() ? 0 : injector.next();
        if (inject == ErrorInjector.OPT_HOST_BUSY) {
            return HOST_BUSY;
        }
        int id = cmd.device().target().id();
        Session s = id < sessions.length ? sessions[id] : null;
        t.issue++;
        t.dropIt = inject == ErrorInjector.OPT_TIMEOUT;
        if (s == null) {
            t.result(HostByte.DID_BAD_TARGET, 0, null, 0, cmd.transferLength());
            finish(t, 0);
            return OK;
        }
        if (inject == ErrorInjector.OPT_TRANSPORT_ERR) {
            // scsi_debug: ABORTED COMMAND, TRANSPORT PROBLEM / ACK/NAK TIMEOUT (4Bh/03h)
            senseResult(t, SenseKey.ABORTED_COMMAND, 0x4B03);
            finish(t, delayNanos);
            return OK;
        }
        if (inject == ErrorInjector.OPT_RARE_TSF) {
            t.result(HostByte.DID_OK, ScsiStatus.TASK_SET_FULL, null, 0, cmd.transferLength());
            finish(t, delayNanos);
            return OK;
        }
        if (injector.mediumErrors() && cmd.opcode() != ScsiOpcode.INQUIRY && isRead(cmd.opcode())
                && ErrorInjector.inMediumErrorRange(lba(cmd), blocks(cmd))) {
            senseResult(t, SenseKey.MEDIUM_ERROR, 0x1100);   // UNRECOVERED READ ERROR
            finish(t, delayNanos);
            return OK;
        }
        TargetCommand tc = s.newCommand().setup(LunAddress.encode(cmd.device().lun()), cmd.cdb(), 0, cmd.cdbLength(),
                TaskAttribute.SIMPLE, t.tag(), cmd.transferLength(), direction(cmd));
        if (cmd.dataDirection() == ScsiCmnd.DIR_TO_DEVICE) {
            tc.dataOut(t.dataOutView());
        }
        tc.fabricPrivate(t);
        s.submit(tc);
        return OK;
    }

    private void senseResult(LoopTask t, int key, int ascAscq) {
        synchronized (scratchSense) {
            int n = FixedSense.encode(scratchSense, key, ascAscq, false, 0, -1);
            t.result(HostByte.DID_OK, ScsiStatus.CHECK_CONDITION, scratchSense, n, t.cmd.transferLength());
        }
    }

    /** The target core's answer: copy Data-In and the result, release the target command, then complete. */
    @Override
    public void complete(TargetCommand tc) {
        LoopTask t = (LoopTask) tc.fabricPrivate();
        if (t == null || tc.tag() != t.tag() || tc.responseSuppressed()) {
            tc.release();   // an issue taken back by error handling, or aborted by our own TMF
            return;
        }
        ScsiCmnd cmd = t.cmd;
        int resid;
        if (cmd.dataDirection() == ScsiCmnd.DIR_FROM_DEVICE) {
            ByteBuffer in = tc.dataIn();
            int n = Math.min(in.remaining(), cmd.transferLength());
            if (n > 0) {
                cmd.buffer().put(cmd.bufferPosition(), in, in.position(), n);
            }
            resid = cmd.transferLength() - n;
        } else {
            resid = tc.residualKind() == TargetCommand.RESIDUAL_UNDERFLOW ? tc.residualCount() : 0;
        }
        t.result(HostByte.DID_OK, tc.status(), tc.senseBuffer(), tc.senseLength(), resid);
        tc.release();
        long delay = delayNanos;
        if ((seekNanos > 0 || commandNanos > 0) && isReadWrite(cmd.opcode())) {
            SeekModel m = seek.get(cmd.device());
            if (m == null) {
                m = seek.computeIfAbsent(cmd.device(), d -> new SeekModel(seekNanos, xferBytesPerSec, commandNanos));
            }
            // Serial head: the wait behind earlier commands of this LUN plus this one's seek and transfer.
            delay += m.access(lba(cmd), blocks(cmd), cmd.transferLength(), System.nanoTime());
        }
        finish(t, delay);
    }

    private void finish(LoopTask t, long delay) {
        if (t.dropIt) {
            t.state.set(LoopTask.DROPPED);   // timeout injection: only an abort or reset ends it
            return;
        }
        if (delay <= 0) {
            t.deliver();
            return;
        }
        // Per submit queue, as scsi_debug's deferred completions: queues never share a timer lock or thread.
        CompletionTimer timer = timers.forQueue(t.cmd.hwQueue());
        t.timer = timer;   // published to takeBack by the volatile PENDING write (release) / its state read (acquire)
        t.state.set(LoopTask.PENDING);
        timer.schedule(t, delay);
    }

    // ---- error handling: take back what is held here ----

    private boolean takeBack(LoopTask t) {
        for (;;) {
            int s = t.state.get();
            if (s == LoopTask.PENDING || s == LoopTask.DROPPED) {
                if (t.state.compareAndSet(s, LoopTask.ABORTED)) {
                    CompletionTimer timer = t.timer;
                    if (timer != null) {
                        timer.cancel(t);
                    }
                    t.issue++;
                    t.state.set(LoopTask.IDLE);
                    return true;
                }
            } else {
                t.issue++;   // completing or already completed: a late target-core answer is dropped
                return false;
            }
        }
    }

    /**
     * ABORT TASK: takes the command back if it is held here, then asks the target core to abort the issue
     * (TASK DOES NOT EXIST is the usual answer: RAM LUNs finish inline). Either way it is gone afterwards.
     */
    @Override
    public EhResult ehAbort(ScsiCmnd cmd) {
        if (!(cmd.lldPrivate() instanceof LoopTask t)) {
            return EhResult.SUCCESS;
        }
        long tag = t.tag();
        takeBack(t);
        TmfResult r = tmf(session(cmd.device()), TmfFunction.ABORT_TASK, cmd.device().lun(), tag);
        return r != null && (r.response() == TmfResponse.FUNCTION_COMPLETE
                || r.response() == TmfResponse.TASK_DOES_NOT_EXIST) ? EhResult.SUCCESS : EhResult.FAILED;
    }

    /** LOGICAL UNIT RESET in the target core (UA 29h/03h for every nexus) after taking back the LUN's commands. */
    @Override
    public EhResult ehDeviceReset(ScsiDevice sdev) {
        for (LoopTask t : tasks) {
            if (t.cmd.device() == sdev) {
                takeBack(t);
            }
        }
        return complete(tmf(session(sdev), TmfFunction.LOGICAL_UNIT_RESET, sdev.lun(), 0));
    }

    /** TARGET WARM RESET of the addressed target. */
    @Override
    public EhResult ehTargetReset(ScsiTarget starget) {
        for (LoopTask t : tasks) {
            if (t.cmd.device() != null && t.cmd.device().target() == starget) {
                takeBack(t);
            }
        }
        Session s = starget.id() < sessions.length ? sessions[starget.id()] : null;
        return complete(tmf(s, TmfFunction.TARGET_WARM_RESET, 0, 0));
    }

    /** Host reset: every command taken back and an I_T NEXUS RESET on each of this host's sessions. */
    @Override
    public EhResult ehHostReset(ScsiHost host) {
        for (LoopTask t : tasks) {
            takeBack(t);
        }
        EhResult r = EhResult.SUCCESS;
        for (Session s : sessions) {
            if (s != null && complete(tmf(s, TmfFunction.I_T_NEXUS_RESET, 0, 0)) != EhResult.SUCCESS) {
                r = EhResult.FAILED;
            }
        }
        return r;
    }

    private Session session(ScsiDevice sdev) {
        int id = sdev.target().id();
        return id < sessions.length ? sessions[id] : null;
    }

    private static EhResult complete(TmfResult r) {
        return r != null && r.response() == TmfResponse.FUNCTION_COMPLETE ? EhResult.SUCCESS : EhResult.FAILED;
    }

    /** A task management request to the target core, waited for (error handling runs on a work thread). */
    private TmfResult tmf(Session s, TmfFunction f, int lun, long tag) {
        if (s == null) {
            return null;
        }
        CompletableFuture<TmfResult> result = new CompletableFuture<>();
        taskManagement.request(s, f, f.lunScoped() ? LunAddress.encode(lun) : 0, tag, result::complete);
        try {
            return result.get(TMF_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            return null;
        }
    }

    int taskCount() {
        return tasks.size();
    }

    long injected() {
        return injector.injected.get();
    }

    // ---- CDB helpers ----

    private static int direction(ScsiCmnd cmd) {
        return switch (cmd.dataDirection()) {
            case ScsiCmnd.DIR_FROM_DEVICE -> DIR_IN;
            case ScsiCmnd.DIR_TO_DEVICE -> DIR_OUT;
            default -> TargetCommand.DIR_NONE;
        };
    }

    private static boolean isRead(int op) {
        return op == ScsiOpcode.READ_10 || op == ScsiOpcode.READ_16;
    }

    private static boolean isReadWrite(int op) {
        return op == ScsiOpcode.READ_10 || op == ScsiOpcode.READ_16 || op == ScsiOpcode.WRITE_10 || op == ScsiOpcode.WRITE_16;
    }

    static long lba(ScsiCmnd cmd) {
        byte[] c = cmd.cdb();
        return cmd.cdbLength() == 16 ? BigEndian.s64(c, 2) : BigEndian.u32(c, 2);
    }

    static long blocks(ScsiCmnd cmd) {
        byte[] c = cmd.cdb();
        return cmd.cdbLength() == 16 ? BigEndian.u32(c, 10) : BigEndian.u16(c, 7);
    }
}
