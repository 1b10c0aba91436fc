package io.hostwide.target.loop;

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
import io.hostwide.target.Fabric;
import io.hostwide.target.Session;
import io.hostwide.target.TargetCommand;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The loop fabric's low-level driver ({@code tcm_loop_queuecommand}): each SCSI command becomes a
 * {@link TargetCommand} on the host's session to the addressed target and goes into the target core in process;
 * Data-Out is the caller's buffer itself, Data-In is copied into it. Completion is inline, or after
 * {@code delay}/{@code ndelay} (+ seek time on rotational LUNs) from the {@link CompletionTimer}, never from a
 * sleeping submitter. Error injection per {@link ErrorInjector}. Aborts and resets take back commands still held
 * here (pending in the timer, or swallowed by timeout injection); the target core's own execution is inline for RAM
 * backstores, so nothing is left running there.
 */
final class LoopLld implements LowLevelDriver, Fabric {
    private static final int DIR_IN = TargetCommand.DIR_READ;
    private static final int DIR_OUT = TargetCommand.DIR_WRITE;

    private final String name;
    /** Session to target id i (the I_T nexus of this host to that target). */
    private final Session[] sessions;
    private final long delayNanos;
    private final long seekNanos;
    private final ErrorInjector injector;
    private final CompletionTimer timer;
    private final Map<ScsiDevice, SeekModel> seek = new ConcurrentHashMap<>();
    /** Every task ever created (one per command slot), for resets. */
    private final CopyOnWriteArrayList<LoopTask> tasks = new CopyOnWriteArrayList<>();
    private final byte[] scratchSense = new byte[FixedSense.LENGTH];

    LoopLld(String name, Session[] sessions, long delayNanos, long seekNanos, ErrorInjector injector, CompletionTimer timer) {
        this.name = name;
        this.sessions = sessions;
        this.delayNanos = delayNanos;
        this.seekNanos = seekNanos;
        this.injector = injector;
        this.timer = timer;
    }

    @Override
    public String name() {
        return name;
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
        LoopTask t = LoopTask.of(cmd);
        tasks.add(t);
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
                TaskAttribute.SIMPLE, t.issue, cmd.transferLength(), direction(cmd));
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
        if (t == null || tc.tag() != t.issue) {
            tc.release();   // an issue that was aborted meanwhile
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
        if (seekNanos > 0 && isReadWrite(cmd.opcode())) {
            SeekModel m = seek.get(cmd.device());
            if (m == null) {
                m = seek.computeIfAbsent(cmd.device(), d -> new SeekModel(seekNanos));
            }
            delay += m.access(lba(cmd), blocks(cmd));
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
        t.state.set(LoopTask.PENDING);
        timer.schedule(t, delay);
    }

    // ---- error handling: take back what is held here ----

    private boolean takeBack(LoopTask t) {
        for (;;) {
            int s = t.state.get();
            if (s == LoopTask.PENDING || s == LoopTask.DROPPED) {
                if (t.state.compareAndSet(s, LoopTask.ABORTED)) {
                    timer.cancel(t);
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

    /** ABORT TASK: the command is no longer held here afterwards (or was already answered). */
    @Override
    public EhResult ehAbort(ScsiCmnd cmd) {
        Object p = cmd.lldPrivate();
        if (p instanceof LoopTask t) {
            takeBack(t);
        }
        return EhResult.SUCCESS;
    }

    @Override
    public EhResult ehDeviceReset(ScsiDevice sdev) {
        for (LoopTask t : tasks) {
            if (t.cmd.device() == sdev) {
                takeBack(t);
            }
        }
        return EhResult.SUCCESS;
    }

    @Override
    public EhResult ehTargetReset(ScsiTarget starget) {
        for (LoopTask t : tasks) {
            if (t.cmd.device() != null && t.cmd.device().target() == starget) {
                takeBack(t);
            }
        }
        return EhResult.SUCCESS;
    }

    @Override
    public EhResult ehHostReset(ScsiHost host) {
        for (LoopTask t : tasks) {
            takeBack(t);
        }
        return EhResult.SUCCESS;
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
