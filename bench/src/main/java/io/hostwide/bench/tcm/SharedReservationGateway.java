package io.hostwide.bench.tcm;

import io.hostwide.scsi.spec.Cdb10;
import io.hostwide.scsi.spec.ScsiOpcode;
import io.hostwide.scsi.spec.TaskAttribute;
import io.hostwide.tcm.TargetCore;
import io.hostwide.tcm.backstore.RamBackstore;
import io.hostwide.tcm.core.CoreConfig;
import io.hostwide.tcm.core.Session;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.lu.DeviceAttributes;
import io.hostwide.tcm.lu.InMemoryReservationStore;
import io.hostwide.tcm.lu.PersistentReservations;
import io.hostwide.tcm.lu.PrChange;
import io.hostwide.tcm.lu.PrState;
import io.hostwide.tcm.lu.PrType;
import io.hostwide.tcm.lu.Registration;
import io.hostwide.tcm.port.ScsiTarget;
import io.hostwide.tcm.port.TargetPort;
import io.hostwide.tcm.spi.ReservationStore;
import io.hostwide.tcm.spi.TargetCommand;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One gateway's target core with a 512-byte-block RAM LU whose reservations are local or shared through an
 * {@link InMemoryReservationStore} (with a second gateway watching, as in a two-gateway deployment), for measuring
 * what the per-command reservation check costs with a shared store (issue 16 item 3). READ(10) of one block:
 * the cheapest medium command, so the check is as large a part of it as it gets.
 */
final class SharedReservationGateway implements AutoCloseable {
    static final int BLOCK = 512;
    static final long BLOCKS = 8192;
    static final String INITIATOR = "iqn.2026-12.io.hostwide:bench";

    final TargetCore core;
    final TargetPort port;
    final Device device;
    private final TargetCore other;

    /**
     * @param shared   reservations in a store shared with a second gateway, else local as today
     * @param reserved the benchmark's nexus holds a Write Exclusive reservation (the check walks the state), else
     *                 no reservation (the check's fast path)
     */
    SharedReservationGateway(boolean shared, boolean reserved) throws Exception {
        this(shared, reserved, new InMemoryReservationStore()::client);
    }

    /** A store client per gateway id: the in-memory store's, or a RADOS client each ({@code Rbd.openReservationStore}). */
    interface Stores {
        ReservationStore client(String gatewayId) throws Exception;
    }

    /** Every store call of both gateways: the per-command check must make none (it reads the cached copy). */
    final AtomicLong storeCalls = new AtomicLong();

    SharedReservationGateway(boolean shared, boolean reserved, Stores cluster) throws Exception {
        core = gatewayCore();
        ScsiTarget t = core.addTarget("iqn.2026-12.io.hostwide:shared");
        port = core.addPort(t, 1, 5);
        device = core.addDevice("lu0", new RamBackstore(BLOCKS * BLOCK, BLOCK), new DeviceAttributes());
        port.addLun(0, device);
        port.demoMode(true, false);
        if (shared) {
            device.reservations().share(new Counting(cluster.client("A"), storeCalls), "A");
            other = gatewayCore();
            ScsiTarget t2 = other.addTarget("iqn.2026-12.io.hostwide:shared");
            t2.firstRelativePortId(2);
            Device d2 = other.addDevice("lu0", new RamBackstore(BLOCK * 8, BLOCK), new DeviceAttributes());
            other.addPort(t2, 2, 5).addLun(0, d2);
            d2.reservations().share(new Counting(cluster.client("B"), storeCalls), "B");
        } else {
            other = null;
        }
        if (reserved) {
            Registration r = new Registration(INITIATOR + ",i,0x1", port.portName(), port.relativePortId(), 0xBEEF, false);
            PersistentReservations.Result res = device.reservations().change(s -> PrChange.to(
                    new PrState(1, List.of(r), PrType.WRITE_EXCLUSIVE, r, null, false), () -> 0));
            if (res.status() != PersistentReservations.Status.COMMITTED) {
                throw new IllegalStateException("reservation not set up: " + res.status());
            }
        }
    }

    private static TargetCore gatewayCore() {
        return new TargetCore(CoreConfig.defaults().withPowerOnUnitAttention(false));
    }

    Session open(TargetBenchFabric fabric) {
        return core.openSession(port, fabric, INITIATOR, INITIATOR + ",i,0x1");
    }

    /** Submits one READ(10) of block {@code lba}; the fabric completes it inline. */
    static void read(Session s, byte[] cdb, long lba, long tag) {
        Cdb10.encode(cdb, ScsiOpcode.READ_10, 0, lba, 1, 0, 0);
        TargetCommand c = s.newCommand().setup(0, cdb, 0, 16, TaskAttribute.SIMPLE, tag, BLOCK, TargetCommand.DIR_READ);
        s.submit(c);
    }

    @Override
    public void close() {
        core.close();
        if (other != null) {
            other.close();
        }
    }

    /** A store that counts the calls made to it, closing the one it wraps with itself (the LU owns both). */
    private record Counting(ReservationStore inner, AtomicLong calls) implements ReservationStore, AutoCloseable {
        @Override
        public Versioned load() throws UnavailableException {
            calls.incrementAndGet();
            return inner.load();
        }

        @Override
        public long compareAndSet(long expected, byte[] bytes) throws UnavailableException {
            calls.incrementAndGet();
            return inner.compareAndSet(expected, bytes);
        }

        @Override
        public boolean notifyWatchers(byte[] payload, Duration timeout) throws UnavailableException {
            calls.incrementAndGet();
            return inner.notifyWatchers(payload, timeout);
        }

        @Override
        public Watch watch(Watcher w) throws UnavailableException {
            calls.incrementAndGet();
            return inner.watch(w);
        }

        @Override
        public void close() throws Exception {
            if (inner instanceof AutoCloseable c) {
                c.close();
            }
        }
    }

    /** Completes inline, counting commands and failures (a conflict or BUSY would void the measurement). */
    static final class TargetBenchFabric implements io.hostwide.tcm.spi.Fabric {
        long done;
        long errors;

        @Override
        public int protocolIdentifier() { return 5; }

        @Override
        public void complete(TargetCommand cmd) {
            if (cmd.status() != 0) {
                errors++;
            }
            done++;
            cmd.release();
        }
    }
}
