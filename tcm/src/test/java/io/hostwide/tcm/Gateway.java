package io.hostwide.tcm;

import io.hostwide.scsi.spec.LunAddress;
import io.hostwide.tcm.backstore.RamBackstore;
import io.hostwide.tcm.core.CoreConfig;
import io.hostwide.tcm.core.Session;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.lu.DeviceAttributes;
import io.hostwide.tcm.lu.InMemoryReservationStore;
import io.hostwide.tcm.port.ScsiTarget;
import io.hostwide.tcm.port.TargetPort;
import io.hostwide.tcm.spi.ReservationStore;
import io.hostwide.tcm.spi.TargetCommand;

/**
 * One gateway of a shared LU, as one {@code hostwide serve} process would be: its own target core with the shared
 * target IQN, one port with its own tag and relative target port identifier, and the LU's reservations shared
 * through the gateway's client of an {@link InMemoryReservationStore}.
 */
final class Gateway implements AutoCloseable {
    static final String IQN = "iqn.2026-12.io.hostwide:shared";

    final String id;
    final TargetCore core;
    final TargetPort port;
    final Device device;
    final TestFabric fabric = new TestFabric();

    Gateway(InMemoryReservationStore cluster, String id, int tag) throws ReservationStore.UnavailableException {
        this(cluster.client(id), id, tag);
    }

    /** A gateway sharing through {@code store} (one client per gateway: a RADOS store is one RADOS client). */
    Gateway(ReservationStore store, String id, int tag) throws ReservationStore.UnavailableException {
        this(store, id, tag, new RamBackstore(Harness.BLOCKS * Harness.BLOCK, Harness.BLOCK));
    }

    /** As above, on {@code storage} (a {@link GatedBackstore} to hold writes in flight). */
    Gateway(ReservationStore store, String id, int tag, io.hostwide.tcm.spi.Backstore storage)
            throws ReservationStore.UnavailableException {
        this.id = id;
        core = new TargetCore(CoreConfig.defaults().withPowerOnUnitAttention(false));
        ScsiTarget target = core.addTarget(IQN);
        target.firstRelativePortId(tag); // tag n gets relative port n: apart from the other gateways'
        port = core.addPort(target, tag, 5);
        device = core.addDevice("shared0", storage, new DeviceAttributes());
        port.addLun(0, device);
        port.demoMode(true, false);
        device.reservations().share(store, id);
        device.reservations().shared().advertisePort(port.relativePortId(), port.portName());
    }

    /** An I_T nexus from initiator {@code name} (ISID 1) through this gateway. */
    Path open(String name) {
        return new Path(this, core.openSession(port, fabric, name, name + ",i,0x000000000001"));
    }

    @Override
    public void close() { core.close(); }

    /** One I_T nexus through one gateway: raw CDBs in, results out. */
    record Path(Gateway g, Session session) {
        TestFabric.Result in(byte[] cdb, int expected) {
            return g.fabric.run(session, LunAddress.encode(0), cdb, expected, TargetCommand.DIR_READ, null);
        }

        TestFabric.Result out(byte[] cdb, byte[] data) {
            return g.fabric.run(session, LunAddress.encode(0), cdb, data.length, TargetCommand.DIR_WRITE, data);
        }

        TestFabric.Result none(byte[] cdb) {
            return g.fabric.run(session, LunAddress.encode(0), cdb, 0, TargetCommand.DIR_NONE, null);
        }

        TestFabric.Result prout(int sa, int type, long key, long saKey, int flags) {
            return out(Nexus.proutCdb(sa, type, 24), Nexus.basic(key, saKey, flags));
        }

        TestFabric.Result register(long key, long saKey) { return prout(0, 0, key, saKey, 0); }

        TestFabric.Result reserve(long key, int type) { return prout(1, type, key, 0, 0); }

        TestFabric.Result prin(int sa) { return in(Nexus.prinCdb(sa, 8192), 8192); }

        TestFabric.Result write() { return out(Harness.write10(0, 1), new byte[Harness.BLOCK]); }

        TestFabric.Result read() { return in(Harness.read10(0, 1), Harness.BLOCK); }

        /** TEST UNIT READY until it stops reporting unit attentions; the ASC/ASCQs consumed. */
        java.util.List<Integer> drainUnitAttentions() {
            java.util.List<Integer> uas = new java.util.ArrayList<>();
            for (int i = 0; i < 20; i++) {
                TestFabric.Result r = none(Harness.cdb(0, 0, 0, 0, 0, 0));
                if (r.senseKey() != 6) {
                    return uas;
                }
                uas.add(r.ascAscq());
            }
            throw new AssertionError("unit attentions never end");
        }
    }
}
