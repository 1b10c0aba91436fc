package io.hostwide.loop;

import io.hostwide.blk.exec.Kblockd;
import io.hostwide.blk.exec.Kblockds;
import io.hostwide.scsi.mid.ScsiDevice;
import io.hostwide.scsi.mid.ScsiHost;
import io.hostwide.scsi.mid.ScsiHostTemplate;
import io.hostwide.scsi.mid.ScsiScanner;
import io.hostwide.scsi.sd.DiscardMode;
import io.hostwide.scsi.sd.HostedDisk;
import io.hostwide.scsi.sd.ScsiDisk;
import io.hostwide.scsi.spec.VpdPage;
import io.hostwide.tcm.core.CoreConfig;
import io.hostwide.tcm.core.Session;
import io.hostwide.tcm.TargetCore;
import io.hostwide.tcm.backstore.RamBackstore;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.lu.DeviceAttributes;
import io.hostwide.tcm.port.ScsiTarget;
import io.hostwide.tcm.port.TargetPort;
import io.hostwide.tcm.spi.Backstore;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An in-process SAN: a target core with RAM LUNs, and {@code add_host} SCSI hosts whose loop drivers talk to it,
 * scanned into {@link ScsiDisk}s (H:C:T:L order). Serves both {@code loop:} and {@code debug:}.
 *
 * <p>Topology: host h has {@code num_tgts} targets, each with {@code max_luns} LUNs. All LUNs share one RAM store
 * (as scsi_debug's), or one per host with {@code per_host_store}.
 */
public final class LoopHba implements HostedDisk.Host {
    private static final AtomicInteger INSTANCES = new AtomicInteger();

    private final LoopHbaConfig cfg;
    private final TargetCore core;
    private final List<ScsiHost> hosts = new ArrayList<>();
    private final List<LoopLld> llds = new ArrayList<>();
    private final List<ScsiDisk> disks = new ArrayList<>();
    private final List<Session> sessions = new ArrayList<>();
    private final CompletionTimers timers;
    private boolean closed;

    /** Builds with the process-wide kblockd. */
    public static LoopHba create(LoopHbaConfig cfg) {
        return new LoopHba(cfg, Kblockds.shared());
    }

    public LoopHba(LoopHbaConfig cfg, Kblockd kblockd) {
        this.cfg = cfg.validate();
        int n = INSTANCES.getAndIncrement();
        this.core = new TargetCore(CoreConfig.defaults());
        this.timers = new CompletionTimers(cfg.kind() + n, cfg.nrHwQueues());
        try {
            Backstore shared = cfg.perHostStore() ? null : new RamBackstore(cfg.sizeBytes(), cfg.sectorSize());
            for (int h = 0; h < cfg.hosts(); h++) {
                Backstore store = shared != null ? shared : new RamBackstore(cfg.sizeBytes(), cfg.sectorSize());
                buildHost(n, h, store, kblockd);
            }
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
    }

    private void buildHost(int n, int h, Backstore store, Kblockd kblockd) {
        Session[] hostSessions = new Session[cfg.targets()];
        LoopLld lld = new LoopLld(cfg.kind() + n + "h" + h, core.taskManagement(), hostSessions, cfg.delayNanos(),
                cfg.seekNanos(), cfg.xferBytesPerSec(), cfg.commandNanos(),
                new ErrorInjector(cfg.everyNth(), cfg.opts()), timers);
        String initiator = "naa.hostwide." + cfg.kind() + n + ".host" + h;
        for (int t = 0; t < cfg.targets(); t++) {
            ScsiTarget target = core.addTarget("naa.hostwide." + cfg.kind() + n + ".h" + h + ".t" + t);
            TargetPort port = core.addPort(target, 1, lld.protocolIdentifier());
            for (int l = 0; l < cfg.luns(); l++) {
                DeviceAttributes a = new DeviceAttributes()
                        .product(cfg.kind().equals("debug") ? "scsi_debug" : "loop")
                        .nonRotational(!cfg.rotational())
                        .thinProvisioning(cfg.thin())
                        .provisioningCommands(provisioningCommands(cfg.discardMode()));
                Device dev = core.addDevice("h" + h + "t" + t + "l" + l, store, a);
                port.addLun(l, dev);
            }
            port.demoMode(true, false);
            hostSessions[t] = core.openSession(port, lld, initiator, initiator + ",i,0x" + Integer.toHexString(t));
            sessions.add(hostSessions[t]);
        }
        ScsiHostTemplate tpl = new ScsiHostTemplate().name(cfg.kind())
                .canQueue(cfg.canQueue()).cmdPerLun(cfg.cmdPerLun()).nrHwQueues(cfg.nrHwQueues())
                .hostTagset(cfg.hostTagset()).maxId(cfg.targets()).maxLun(cfg.luns()).maxSectors(65535)
                .trackQueueDepth(cfg.trackQueueDepth()).restartPolicy(cfg.restartPolicy())
                .bypassBudgetNonRotational(cfg.bypassBudgetNonRotational()).timeoutMillis(cfg.timeoutMillis())
                // in-process LUNs need no bus settle time after a host reset (scsi_debug and tcm_loop skip it too)
                .skipSettleDelay(true);
        ScsiHost host = new ScsiHost(tpl, lld, kblockd);
        host.tagSet().setSharedTagModes(cfg.sharedTagModes());   // before the scan: no I/O yet
        hosts.add(host);
        llds.add(lld);
        List<ScsiDevice> found = new ScsiScanner(host).scanHost();
        int expected = cfg.targets() * cfg.luns();
        if (found.size() != expected) {
            throw new IllegalStateException(cfg.kind() + ": scan of host " + h + " found " + found.size()
                    + " LUNs, expected " + expected);
        }
        for (ScsiDevice d : found) {
            ScsiDisk disk = new ScsiDisk(d, cfg.fuaWrites(), cfg.force16(), cfg.discardMode());
            disks.add(disk);
            if (cfg.scheduler() != null) {
                disk.queue().setScheduler(cfg.scheduler());   // before any I/O of the user's
            }
        }
    }

    /** scsi_debug advertises only what lbpu / lbpws turn on; loop's thin LUNs advertise every unmap command. */
    private static int provisioningCommands(DiscardMode mode) {
        return switch (mode) {
            case UNMAP -> VpdPage.LogicalBlockProvisioning.LBPU;
            case WRITE_SAME_16 -> VpdPage.LogicalBlockProvisioning.LBPWS;
            default -> DeviceAttributes.PROVISIONING_ALL;
        };
    }

    /** The configuration the HBA was built from; {@link #delayNanos()} is the latency in force now. */
    public LoopHbaConfig config() { return cfg; }

    /** Largest latency the knobs can give: {@code delay}'s 10 000 ms ({@code ndelay} alone stays under 1 s). */
    public static final long MAX_DELAY_NANOS = 10_000L * 1_000_000L;

    /**
     * Writes the latency at run time, as scsi_debug's {@code delay}/{@code ndelay} sysfs attributes allow: commands
     * answered from now on complete after {@code nanos} (0: inline in {@code queuecommand}) on every host of this
     * HBA.
     */
    public void setDelayNanos(long nanos) {
        if (nanos < 0 || nanos > MAX_DELAY_NANOS) {
            throw new IllegalArgumentException("delay must be 0.." + MAX_DELAY_NANOS + " ns, got " + nanos);
        }
        for (LoopLld l : llds) {
            l.delayNanos(nanos);
        }
    }

    /** The completion latency in force ({@code delay}/{@code ndelay}, or the last {@link #setDelayNanos}). */
    public long delayNanos() {
        return llds.isEmpty() ? cfg.delayNanos() : llds.get(0).delayNanos();
    }

    public TargetCore core() { return core; }

    public List<ScsiHost> hosts() { return List.copyOf(hosts); }

    /** Every disk, host by host in H:C:T:L order. */
    public List<ScsiDisk> disks() { return List.copyOf(disks); }

    public ScsiDisk disk(int i) { return disks.get(i); }

    /** Commands the error injector altered so far, over all hosts. */
    public long injectedErrors() {
        long n = 0;
        for (LoopLld l : llds) {
            n += l.injected();
        }
        return n;
    }

    /** Completion-timer threads alive now (one per submit queue that has had a delayed completion). */
    int completionThreads() {
        return timers.running();
    }

    /** Delayed-completion entries not yet handled by their timers (tests wait for 0 instead of sleeping). */
    int timerEntriesOutstanding() {
        return timers.outstanding();
    }

    /** The loop driver's per-slot task objects over all hosts: bounded by the command slots, however long it runs. */
    long driverTasks() {
        long n = 0;
        for (LoopLld l : llds) {
            n += l.taskCount();
        }
        return n;
    }

    /**
     * Waits for outstanding I/O, removes every LUN and host, stops the completion timers (delivering anything still
     * pending), closes the target core.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (ScsiDisk d : disks) {
            d.close();
        }
        for (ScsiHost h : hosts) {
            h.close();
        }
        timers.close();
        for (Session s : sessions) {
            s.close();
        }
        core.close();
    }
}
