package io.hostwide.tcm;

import io.hostwide.scsi.spec.BigEndian;
import io.hostwide.scsi.spec.LunAddress;
import io.hostwide.tcm.backstore.RamBackstore;
import io.hostwide.tcm.core.CoreConfig;
import io.hostwide.tcm.core.Session;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.lu.DeviceAttributes;
import io.hostwide.tcm.port.ScsiTarget;
import io.hostwide.tcm.port.TargetPort;
import io.hostwide.tcm.spi.Backstore;
import io.hostwide.tcm.spi.TargetCommand;

/**
 * A core with one target, one demo-mode port, one device at LUN 0 and one session, for byte-level tests.
 */
public final class Harness implements AutoCloseable {
    public static final int BLOCK = 512;
    public static final long BLOCKS = 2048;

    public final TargetCore core;
    public final ScsiTarget target;
    public final TargetPort port;
    public final Device device;
    public final TestFabric fabric = new TestFabric();
    public final Session session;

    public Harness() { this(new DeviceAttributes(), new RamBackstore(BLOCKS * BLOCK, BLOCK)); }

    public Harness(DeviceAttributes attrs) { this(attrs, new RamBackstore(BLOCKS * BLOCK, BLOCK)); }

    public Harness(DeviceAttributes attrs, Backstore backstore) { this(attrs, backstore, false); }

    public Harness(DeviceAttributes attrs, Backstore backstore, boolean powerOnUa) {
        this("dev0", attrs, backstore, powerOnUa);
    }

    public Harness(String deviceName, DeviceAttributes attrs, Backstore backstore, boolean powerOnUa) {
        core = new TargetCore(CoreConfig.defaults().withPowerOnUnitAttention(powerOnUa));
        target = core.addTarget("iqn.2026-12.io.hostwide:test");
        port = core.addPort(target, 1, 5);
        device = core.addDevice(deviceName, backstore, attrs);
        port.addLun(0, device);
        port.demoMode(true, false);
        session = core.openSession(port, fabric, "iqn.2026-12.io.hostwide:initiator", "iqn.2026-12.io.hostwide:initiator,i,0x000000000001");
    }

    public Session newSession(String initiator) {
        return core.openSession(port, fabric, initiator, initiator + ",i,0x000000000001");
    }

    /** A CDB from unsigned byte values. */
    public static byte[] cdb(int... bytes) {
        byte[] c = new byte[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            c[i] = (byte) bytes[i];
        }
        return c;
    }

    public TestFabric.Result in(byte[] cdb, int expected) {
        return fabric.run(session, LunAddress.encode(0), cdb, expected, TargetCommand.DIR_READ, null);
    }

    public TestFabric.Result out(byte[] cdb, byte[] data) {
        return fabric.run(session, LunAddress.encode(0), cdb, data.length, TargetCommand.DIR_WRITE, data);
    }

    public TestFabric.Result none(byte[] cdb) {
        return fabric.run(session, LunAddress.encode(0), cdb, 0, TargetCommand.DIR_NONE, null);
    }

    public static byte[] read10(long lba, int blocks) {
        byte[] c = new byte[10];
        c[0] = 0x28;
        BigEndian.put32(c, 2, lba);
        BigEndian.put16(c, 7, blocks);
        return c;
    }

    public static byte[] write10(long lba, int blocks) {
        byte[] c = read10(lba, blocks);
        c[0] = 0x2A;
        return c;
    }

    public static byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (seed * 31 + i * 7);
        }
        return b;
    }

    /**
     * Closing the core waits for every outstanding command; a gated backstore is opened first, so a test that
     * failed while commands were parked ends with its assertion, not with a hang in close.
     */
    @Override
    public void close() {
        if (device.backstore() instanceof GatedBackstore g) {
            g.open();
        }
        core.close();
    }
}
