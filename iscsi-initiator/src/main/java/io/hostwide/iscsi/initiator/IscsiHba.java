package io.hostwide.iscsi.initiator;

import io.hostwide.scsi.sd.HostedDisk;
import io.hostwide.blk.exec.Kblockds;
import io.hostwide.scsi.mid.ScsiDevice;
import io.hostwide.scsi.mid.ScsiHost;
import io.hostwide.scsi.mid.ScsiHostTemplate;
import io.hostwide.scsi.mid.ScsiScanner;
import io.hostwide.scsi.sd.ScsiDisk;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * An iSCSI session as a SCSI host: login, then {@code scsi_add_host} with nr_hw_queues = the connections the
 * target granted and can_queue = cmds_max (default: max(128, the CmdSN window at login); host_tagset: shared by
 * every connection; a closed window is TARGET_BUSY),
 * then the scan (REPORT LUNS, INQUIRY, READ CAPACITY, VPD) and a {@link ScsiDisk} per direct-access LUN.
 *
 * <pre>{@code
 * try (IscsiHba hba = IscsiHba.connect(new InitiatorConfig(IscsiUrl.parse("iscsi://127.0.0.1:3260/iqn.x:t0/0")))) {
 *     ScsiDisk disk = hba.disk(0);
 *     ...
 * }
 * }</pre>
 */
public final class IscsiHba implements HostedDisk.Host {
    private final InitiatorSession session;
    private final ScsiHost host;
    private final List<ScsiDisk> disks = new ArrayList<>();
    private boolean closed;

    private IscsiHba(InitiatorSession session, ScsiHost host) {
        this.session = session;
        this.host = host;
    }

    /** Logs in and scans; a refused or broken login is a {@link LoginException}, other failures IOExceptions. */
    public static IscsiHba connect(InitiatorConfig cfg) throws IOException {
        cfg.validate();
        if (cfg.url.isPortal()) {
            throw new IllegalArgumentException("url: a session to a target needs iscsi://HOST[:PORT]/IQN/LUN, got the "
                    + "portal " + cfg.url + " (use SendTargetsDiscovery for a portal)");
        }
        InitiatorSession s = InitiatorSession.open(cfg);
        IscsiHba hba = null;
        try {
            InitiatorSession.Live l = s.live();
            int canQueue = Math.min(ScsiHostTemplate.MAX_QUEUE_DEPTH, cfg.canQueue(l.window().size()));
            ScsiHostTemplate t = new ScsiHostTemplate().name("iscsi").canQueue(canQueue)
                    .cmdPerLun(cfg.cmdPerLun == 0 ? canQueue : Math.min(cfg.cmdPerLun, canQueue))
                    .nrHwQueues(l.conns().length).hostTagset(true).maxId(1)
                    .maxLun(Math.max(8, cfg.url.lun() + 1)).maxSectors(16384)
                    .timeoutMillis(cfg.ioTimeoutMillis).validate();
            ScsiHost host = new ScsiHost(t, new IscsiLld(s), Kblockds.shared());
            // iscsi_target_alloc: the target's can_queue is the session's cmds_max; a closed CmdSN window
            // (TARGET_BUSY) blocks the target until a completion re-runs its queues.
            host.target(0, 0).canQueue(canQueue);
            s.attach(host);
            hba = new IscsiHba(s, host);
            for (ScsiDevice d : new ScsiScanner(host).scanHost()) {
                if (d.info() != null && d.info().peripheralType() == 0) {
                    hba.disks.add(new ScsiDisk(d, false, false));
                }
            }
            return hba;
        } catch (RuntimeException e) {
            if (hba != null) {
                hba.close();
            } else {
                s.close();
            }
            throw e;
        }
    }

    public ScsiHost host() {
        return host;
    }

    public List<ScsiDisk> disks() {
        return List.copyOf(disks);
    }

    /** The disk of LUN {@code lun}, or an IllegalArgumentException listing the LUNs the target has. */
    public ScsiDisk disk(int lun) {
        for (ScsiDisk d : disks) {
            if (d.scsiDevice().lun() == lun) {
                return d;
            }
        }
        List<Integer> luns = new ArrayList<>();
        for (ScsiDisk d : disks) {
            luns.add(d.scsiDevice().lun());
        }
        throw new IllegalArgumentException("LUN " + lun + " is not a disk on " + session.cfg.url.targetName()
                + " (disk LUNs: " + luns + ")");
    }

    /** The number of session reinstatements so far (connection failures and host resets that logged in again). */
    public long reinstatements() {
        return session.reinstatements();
    }

    /** Which data paths the session used. */
    public InitiatorStats stats() {
        return session.stats;
    }

    InitiatorSession session() {
        return session;
    }

    /** Waits for outstanding I/O, removes the LUNs and the host, logs out. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (session.state() != InitiatorSession.State.LOGGED_IN) {
            session.close();   // nothing can finish: fail what is queued instead of waiting out the recovery
        }
        for (ScsiDisk d : disks) {
            d.close();
        }
        host.close();
        session.close();
    }
}
