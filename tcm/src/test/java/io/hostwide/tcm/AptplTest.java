package io.hostwide.tcm;

import io.hostwide.scsi.spec.BigEndian;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.tcm.backstore.RamBackstore;
import io.hostwide.tcm.core.CoreConfig;
import io.hostwide.tcm.core.Session;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.lu.DeviceAttributes;
import io.hostwide.tcm.port.ScsiTarget;
import io.hostwide.tcm.port.TargetPort;
import io.hostwide.tcm.spi.TargetCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** SPC-4 §5.13.5: with APTPL, registrations and the reservation survive a restart (a new core, same directory). */
class AptplTest {
    static final String INITIATOR = "iqn.2026-12.io.hostwide:initiator";

    /** A core like {@link Harness}'s, keeping APTPL state in {@code dir}. */
    private static final class Core implements AutoCloseable {
        final TargetCore core = new TargetCore(CoreConfig.defaults().withPowerOnUnitAttention(false));
        final TestFabric fabric = new TestFabric();
        final Device device;
        final Session session;

        Core(Path dir) {
            core.aptplDirectory(dir);
            ScsiTarget t = core.addTarget("iqn.2026-12.io.hostwide:test");
            TargetPort p = core.addPort(t, 1, 5);
            device = core.addDevice("dev0", new RamBackstore(1 << 20, 512), new DeviceAttributes().unitSerial("serial1"));
            p.addLun(0, device);
            p.demoMode(true, false);
            session = core.openSession(p, fabric, INITIATOR, INITIATOR + ",i,0x000000000001");
        }

        TestFabric.Result out(byte[] cdb, byte[] data) {
            return fabric.run(session, 0, cdb, data.length, TargetCommand.DIR_WRITE, data);
        }

        TestFabric.Result in(byte[] cdb) { return fabric.run(session, 0, cdb, 8192, TargetCommand.DIR_READ, null); }

        @Override
        public void close() { core.close(); }
    }

    /**
     * Regression: an all-registrants reservation has no holder, and writing its APTPL file looked the null holder
     * up in the state's immutable registration list, which throws NullPointerException instead of returning -1.
     */
    @Test
    void allRegistrantsReservationSurvivesARestart(@TempDir Path dir) throws Exception {
        try (Core c = new Core(dir)) {
            assertThat(c.out(Nexus.proutCdb(6, 0, 24), Nexus.basic(0, 0xFEED, 0x01)).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(c.out(Nexus.proutCdb(1, 7, 24), Nexus.basic(0xFEED, 0, 0)).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(Files.readString(dir.resolve("aptpl_serial1"))).contains("reservation 7 -1");
        }
        try (Core c = new Core(dir)) {
            byte[] d = c.in(Nexus.prinCdb(1, 8192)).data();
            assertThat(BigEndian.u32(d, 4)).as("a reservation is reported").isEqualTo(16);
            assertThat(d[21] & 0x0F).isEqualTo(7);
        }
    }

    @Test
    void registrationAndReservationSurviveARestart(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("aptpl_serial1");
        int generation;
        try (Core c = new Core(dir)) {
            assertThat(c.out(Nexus.proutCdb(6, 0, 24), Nexus.basic(0, 0xFEED, 0x01)).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(c.out(Nexus.proutCdb(1, 5, 24), Nexus.basic(0xFEED, 0, 0)).status()).isEqualTo(ScsiStatus.GOOD);
            generation = (int) BigEndian.u32(c.in(Nexus.prinCdb(0, 8192)).data(), 0);
            assertThat(Files.readString(file)).startsWith("hostwide-aptpl 1").contains("reservation 5 0");
        }
        try (Core c = new Core(dir)) {
            byte[] keys = c.in(Nexus.prinCdb(0, 8192)).data();
            assertThat(generation).isPositive();
            // SPC-4 §6.16.2: "regardless of the APTPL bit value the PRgeneration value shall be set to zero by a
            // power on", and a restart is one
            assertThat(BigEndian.u32(keys, 0)).isZero();
            assertThat(BigEndian.s64(keys, 8)).isEqualTo(0xFEED);
            byte[] res = c.in(Nexus.prinCdb(1, 8192)).data();
            assertThat(BigEndian.s64(res, 8)).isEqualTo(0xFEED);
            assertThat(res[21]).isEqualTo((byte) 5);
            byte[] caps = c.in(Nexus.prinCdb(2, 8192)).data();
            assertThat(caps[3] & 0x01).as("PTPL_A").isEqualTo(1);
            // the restored registration is this nexus's: it may write under its WE-RO reservation
            assertThat(c.out(Harness.write10(0, 1), new byte[512]).status()).isEqualTo(ScsiStatus.GOOD);
            // a REGISTER with APTPL = 0 turns persistence off: the file goes
            assertThat(c.out(Nexus.proutCdb(0, 0, 24), Nexus.basic(0xFEED, 0xBEEF, 0)).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(file).doesNotExist();
        }
        try (Core c = new Core(dir)) {
            assertThat(BigEndian.u32(c.in(Nexus.prinCdb(0, 8192)).data(), 4)).isZero();
        }
    }

    @Test
    void withoutAptplNothingIsWritten(@TempDir Path dir) throws Exception {
        try (Core c = new Core(dir)) {
            assertThat(c.out(Nexus.proutCdb(6, 0, 24), Nexus.basic(0, 0xFEED, 0)).status()).isEqualTo(ScsiStatus.GOOD);
        }
        try (var files = Files.list(dir)) {
            assertThat(files).isEmpty();
        }
    }

    /** A damaged APTPL file is a configuration error reported when the device is added, not silently dropped. */
    @Test
    void aDamagedFileFailsLoudly(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("aptpl_serial1"), "hostwide-aptpl 1\nregistration zz 0\n");
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> new Core(dir).close()))
                .isInstanceOf(java.io.UncheckedIOException.class).hasMessageContaining("aptpl_serial1");
    }
}
