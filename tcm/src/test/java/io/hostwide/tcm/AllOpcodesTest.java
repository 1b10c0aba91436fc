package io.hostwide.tcm;

import io.hostwide.scsi.spec.Asc;
import io.hostwide.scsi.spec.CdbGroup;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.scsi.spec.SenseKey;
import io.hostwide.tcm.backstore.RamBackstore;
import io.hostwide.tcm.dispatch.CommandDescriptor;
import io.hostwide.tcm.lu.DeviceAttributes;
import io.hostwide.tcm.spi.SenseReason;
import io.hostwide.tcm.spi.TargetCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * STYLE.md rule 5: every one of the 256 opcodes, and every service action of an opcode that has them, is either
 * implemented or answered with INVALID COMMAND OPERATION CODE / INVALID FIELD IN CDB. What "implemented" means comes
 * from the committed list {@code implemented-commands.txt}, never from the table under test, so a row that
 * disappears or appears fails here. No CDB content — random bytes, every reserved bit, impossible lengths — throws
 * out of the core or changes data when the command is rejected.
 */
class AllOpcodesTest {
    private static final Map<String, DeviceAttributes> CONFIGS = new LinkedHashMap<>();

    static {
        CONFIGS.put("default", new DeviceAttributes());
        CONFIGS.put("thin", new DeviceAttributes().thinProvisioning(true));
        CONFIGS.put("minimal", new DeviceAttributes().emulateCaw(false).emulateWriteAtomic(false).emulateSanitize(false));
    }

    /** One implemented command of the golden list: opcode, service action (-1: none), name. */
    private record Golden(int opcode, int serviceAction, String name) {
        @Override
        public String toString() {
            return String.format("%02X%s %s", opcode, serviceAction < 0 ? "" : String.format("/%02X", serviceAction), name);
        }
    }

    /** The golden list of one configuration, read from the test resource. */
    private static Set<Golden> golden(String config) throws IOException {
        Set<Golden> out = new TreeSet<>(Comparator.comparing(Golden::toString));
        try (InputStream in = AllOpcodesTest.class.getResourceAsStream("/implemented-commands.txt")) {
            assertThat(in).as("implemented-commands.txt on the test class path").isNotNull();
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                String[] f = line.trim().split("\\s+", 3);
                if (!f[0].equals(config)) {
                    continue;
                }
                String[] opSa = f[1].split("/");
                out.add(new Golden(Integer.parseInt(opSa[0], 16), opSa.length > 1 ? Integer.parseInt(opSa[1], 16) : -1, f[2]));
            }
        }
        assertThat(out).as("golden list for %s", config).isNotEmpty();
        return out;
    }

    private static Harness harness(String config) {
        return new Harness(CONFIGS.get(config), new RamBackstore(Harness.BLOCKS * Harness.BLOCK, Harness.BLOCK));
    }

    @ParameterizedTest
    @ValueSource(strings = {"default", "thin", "minimal"})
    void theCommandTableIsTheGoldenList(String config) throws IOException {
        try (Harness h = harness(config)) {
            Set<Golden> table = new TreeSet<>(Comparator.comparing(Golden::toString));
            for (CommandDescriptor d : h.core.commandTable(h.device).all()) {
                table.add(new Golden(d.opcode(), d.hasServiceAction() ? d.serviceAction() : -1, d.name()));
            }
            assertThat(table).as("%s: the command table against implemented-commands.txt", config)
                    .containsExactlyElementsOf(golden(config));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"default", "thin", "minimal"})
    void everyOpcodeIsImplementedOrInvalidCommandOperationCode(String config) throws IOException {
        Set<Integer> implemented = new TreeSet<>();
        for (Golden g : golden(config)) {
            implemented.add(g.opcode());
        }
        try (Harness h = harness(config)) {
            for (int op = 0; op < 256; op++) {
                byte[] cdb = new byte[16];
                cdb[0] = (byte) op;
                TestFabric.Result r = h.fabric.run(h.session, 0, cdb, 4096, TargetCommand.DIR_READ, null);
                if (!implemented.contains(op)) {
                    assertThat(r.status()).as("%s: opcode %02x", config, op).isEqualTo(ScsiStatus.CHECK_CONDITION);
                    assertThat(r.senseKey()).as("%s: opcode %02x", config, op).isEqualTo(SenseKey.ILLEGAL_REQUEST);
                    assertThat(r.ascAscq()).as("%s: opcode %02x", config, op).isEqualTo(Asc.INVALID_COMMAND_OPERATION_CODE);
                } else {
                    assertThat(r.reason()).as("%s: opcode %02x: %s", config, op, r)
                            .isNotEqualTo(SenseReason.INVALID_COMMAND_OPERATION_CODE)
                            .isNotEqualTo(SenseReason.INTERNAL_TARGET_FAILURE);
                }
            }
        }
    }

    /** SPC-4 §4.2.5.1: an unsupported service action is INVALID FIELD IN CDB pointing at byte 1, bit 4. */
    @ParameterizedTest
    @ValueSource(strings = {"default", "thin", "minimal"})
    void everyServiceActionIsImplementedOrInvalidFieldInCdb(String config) throws IOException {
        Map<Integer, Set<Integer>> actions = new TreeMap<>();
        for (Golden g : golden(config)) {
            if (g.serviceAction() >= 0) {
                actions.computeIfAbsent(g.opcode(), k -> new TreeSet<>()).add(g.serviceAction());
            }
        }
        assertThat(actions).as("opcodes with service actions").containsKeys(0x5E, 0x5F, 0x9E, 0xA3);
        try (Harness h = harness(config)) {
            for (Map.Entry<Integer, Set<Integer>> e : actions.entrySet()) {
                int op = e.getKey();
                if (op == 0x48) { // SANITIZE erases the medium: its service actions are tested in SanitizeTest
                    continue;
                }
                for (int sa = 0; sa < 32; sa++) {
                    byte[] cdb = new byte[CdbGroup.lengthOf(op) == 0 ? 16 : CdbGroup.lengthOf(op)];
                    cdb[0] = (byte) op;
                    cdb[1] = (byte) sa;
                    TestFabric.Result r = h.fabric.run(h.session, 0, cdb, 4096, TargetCommand.DIR_READ, null);
                    String what = String.format("%s: %02X/%02X: %s", config, op, sa, r);
                    if (e.getValue().contains(sa)) {
                        assertThat(r.reason()).as(what).isNotEqualTo(SenseReason.INTERNAL_TARGET_FAILURE);
                        assertThat(r.ascAscq() == Asc.INVALID_FIELD_IN_CDB && (r.fieldPointer() & 0xFFFF) == 1)
                                .as(what + " rejected at the service action field").isFalse();
                    } else {
                        assertThat(r.ascAscq()).as(what).isEqualTo(Asc.INVALID_FIELD_IN_CDB);
                        assertThat(r.fieldPointer()).as(what + ": SKSV, C/D, BPV, bit 4, byte 1").isEqualTo(0xCC_0001);
                    }
                }
            }
        }
    }

    @Test
    void randomCdbsNeverThrowAndRejectedCommandsChangeNoData() {
        RamBackstore ram = new RamBackstore(512 * Harness.BLOCK, Harness.BLOCK);
        try (Harness h = new Harness(new DeviceAttributes().thinProvisioning(true).removable(true), ram)) {
            Random rnd = new Random(0x5C51);
            byte[] snapshot = contents(ram);
            int good = 0;
            Map<SenseReason, Integer> reasons = new TreeMap<>();
            for (int i = 0; i < 10_000; i++) {
                java.util.List<CommandDescriptor> rows = h.core.commandTable(h.device).all();
                CommandDescriptor row = rows.get(rnd.nextInt(rows.size()));
                int op = rnd.nextInt(5) == 0 ? rnd.nextInt(256) : row.opcode();
                if (op == 0x1B || op == 0x48) { // START STOP / SANITIZE: ejecting or erasing is covered elsewhere
                    continue;
                }
                int len = CdbGroup.lengthOf(op) == 0 ? 16 : CdbGroup.lengthOf(op);
                byte[] cdb = new byte[len];
                rnd.nextBytes(cdb);
                cdb[0] = (byte) op;
                if (op == row.opcode() && rnd.nextInt(10) < 7) {
                    for (int k = 1; k < Math.min(len, row.usage().length); k++) {
                        cdb[k] &= row.usage()[k]; // mostly valid CDBs: only used bits set
                    }
                    if (row.hasServiceAction()) {
                        cdb[1] = (byte) (cdb[1] & 0xE0 | row.serviceAction());
                    }
                    cdb[len - 1] = 0;
                    if (rnd.nextInt(10) < 8) {
                        shrinkLengths(cdb);
                    }
                }
                int edtl = rnd.nextInt(4) == 0 ? rnd.nextInt(1 << 16) : rnd.nextInt(4 * Harness.BLOCK + 1);
                int dir = rnd.nextInt(4);
                byte[] out = (dir & TargetCommand.DIR_WRITE) != 0 ? new byte[edtl] : null;
                if (out != null) {
                    rnd.nextBytes(out);
                }
                TestFabric.Result r = h.fabric.run(h.session, 0, cdb, edtl, dir, out);
                assertThat(r.reason()).as("cdb %s", Arrays.toString(cdb)).isNotEqualTo(SenseReason.INTERNAL_TARGET_FAILURE);
                assertThat(r.status()).isIn(ScsiStatus.GOOD, ScsiStatus.CHECK_CONDITION, ScsiStatus.CONDITION_MET);
                if (r.reason() == null) {
                    good++;
                } else {
                    reasons.merge(r.reason(), 1, Integer::sum);
                }
                if (r.status() == ScsiStatus.CHECK_CONDITION && r.senseKey() != SenseKey.MISCOMPARE) {
                    assertThat(contents(ram)).as("rejected cdb %s changed data: %s", Arrays.toString(cdb), r).isEqualTo(snapshot);
                } else if (r.status() != ScsiStatus.CHECK_CONDITION) {
                    snapshot = contents(ram);
                }
                h.device.mediumLoaded(true);
                h.session.lookup(0).preventMediumRemoval(false);
            }
            // the fuzzing must reach the handlers, not only the CDB checks
            assertThat(good).as("completed GOOD; failures %s", reasons).isGreaterThan(500);
            assertThat(reasons).containsKeys(SenseReason.LBA_OUT_OF_RANGE, SenseReason.INVALID_FIELD_IN_CDB);
            System.out.println("fuzz: good=" + good + " " + reasons);
        }
    }

    /** Makes transfer/allocation fields small so that more random commands get past the length checks. */
    private static void shrinkLengths(byte[] cdb) {
        for (int i = 2; i < cdb.length - 1; i++) {
            cdb[i] = (byte) (cdb[i] & 0x03);
        }
        cdb[1] &= 0x1F;
    }

    private static byte[] contents(RamBackstore ram) {
        ByteBuffer b = ByteBuffer.allocate((int) (ram.blockCount() * ram.blockSize()));
        ram.read(0, b);
        return b.array();
    }
}
