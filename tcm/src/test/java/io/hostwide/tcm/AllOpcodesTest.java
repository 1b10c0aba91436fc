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

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * STYLE.md rule 5: every one of the 256 opcodes is either implemented or answered with INVALID COMMAND OPERATION
 * CODE, and no CDB content — random bytes, every reserved bit, impossible lengths — throws out of the core or
 * changes data when the command is rejected.
 */
class AllOpcodesTest {

    @Test
    void everyOpcodeIsImplementedOrInvalidCommandOperationCode() {
        try (Harness h = new Harness()) {
            for (int op = 0; op < 256; op++) {
                byte[] cdb = new byte[16];
                cdb[0] = (byte) op;
                TestFabric.Result r = h.fabric.run(h.session, 0, cdb, 4096, TargetCommand.DIR_READ, null);
                if (!h.core.commandTable(h.device).supportsOpcode(op)) {
                    assertThat(r.status()).as("opcode %02x", op).isEqualTo(ScsiStatus.CHECK_CONDITION);
                    assertThat(r.senseKey()).as("opcode %02x", op).isEqualTo(SenseKey.ILLEGAL_REQUEST);
                    assertThat(r.ascAscq()).as("opcode %02x", op).isEqualTo(Asc.INVALID_COMMAND_OPERATION_CODE);
                } else {
                    assertThat(r.reason()).as("opcode %02x: %s", op, r).isNotEqualTo(SenseReason.INVALID_COMMAND_OPERATION_CODE)
                            .isNotEqualTo(SenseReason.INTERNAL_TARGET_FAILURE);
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
            java.util.Map<SenseReason, Integer> reasons = new java.util.TreeMap<>();
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
