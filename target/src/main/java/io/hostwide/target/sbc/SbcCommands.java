package io.hostwide.target.sbc;

import io.hostwide.scsi.spec.ScsiOpcode;
import io.hostwide.scsi.spec.ServiceAction;
import io.hostwide.target.core.CommandTable;
import io.hostwide.target.core.ReservationRule;
import io.hostwide.target.core.Row;
import io.hostwide.target.core.TransferLength;
import io.hostwide.target.spc.SpcCommands;

import static io.hostwide.target.core.CommandDescriptor.BACKSTORE_IO;
import static io.hostwide.target.core.CommandDescriptor.MEDIUM_ACCESS;
import static io.hostwide.target.core.CommandDescriptor.WRITES_MEDIUM;

/**
 * The command table of a direct-access block device (peripheral device type 00h): SPC-4 commands plus SBC-4.
 * One immutable table is shared by every block device; handlers read the device from the command.
 */
public final class SbcCommands {
    private SbcCommands() {}

    private static final CommandTable TABLE = build();

    public static CommandTable table() { return TABLE; }

    static final int READ_IO = MEDIUM_ACCESS | BACKSTORE_IO;
    static final int WRITE_IO = MEDIUM_ACCESS | BACKSTORE_IO | WRITES_MEDIUM;

    private static CommandTable build() {
        CommandTable t = new CommandTable();
        t.add(SpcCommands.testUnitReady());
        t.add(SpcCommands.inquiry());
        t.add(SpcCommands.reportLuns());
        t.add(SpcCommands.requestSense());
        readWrite(t);
        t.add(Row.of(ScsiOpcode.READ_CAPACITY_10, "READ CAPACITY(10)").usage(0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0x01, 0x07)
                .dataIn((cdb, dev) -> 8).flags(MEDIUM_ACCESS).reservation(ReservationRule.ALWAYS_ALLOWED)
                .alua(io.hostwide.target.core.CommandDescriptor.ALUA_STANDBY).timeouts(1, 5)
                .handler(ReadCapacity::capacity10));
        t.add(Row.of(ScsiOpcode.SERVICE_ACTION_IN_16, "READ CAPACITY(16)").sa(ServiceAction.READ_CAPACITY_16)
                .usage(0x1F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x07)
                .dataIn(TransferLength.field(10, 4)).flags(MEDIUM_ACCESS).reservation(ReservationRule.ALWAYS_ALLOWED)
                .alua(io.hostwide.target.core.CommandDescriptor.ALUA_STANDBY).timeouts(1, 5)
                .handler(ReadCapacity::capacity16));
        return t;
    }

    private static void readWrite(CommandTable t) {
        t.add(Row.of(ScsiOpcode.READ_6, "READ(6)").usage(0x1F, 0xFF, 0xFF, 0xFF, 0x07)
                .dataIn(BlockCdb.DATA).flags(READ_IO).reservation(ReservationRule.READ).timeouts(5, 30)
                .handler(ReadWrite::read));
        t.add(Row.of(ScsiOpcode.READ_10, "READ(10)").usage(0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0x3F, 0xFF, 0xFF, 0x07)
                .dataIn(BlockCdb.DATA).flags(READ_IO).reservation(ReservationRule.READ).timeouts(5, 30)
                .handler(ReadWrite::read));
        t.add(Row.of(ScsiOpcode.READ_12, "READ(12)")
                .usage(0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x3F, 0x07)
                .dataIn(BlockCdb.DATA).flags(READ_IO).reservation(ReservationRule.READ).timeouts(5, 30)
                .handler(ReadWrite::read));
        t.add(Row.of(ScsiOpcode.READ_16, "READ(16)")
                .usage(0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x07)
                .dataIn(BlockCdb.DATA).flags(READ_IO).reservation(ReservationRule.READ).timeouts(5, 30)
                .handler(ReadWrite::read));
        t.add(Row.of(ScsiOpcode.WRITE_6, "WRITE(6)").usage(0x1F, 0xFF, 0xFF, 0xFF, 0x07)
                .dataOut(BlockCdb.DATA).flags(WRITE_IO).timeouts(5, 30).handler(ReadWrite::write));
        t.add(Row.of(ScsiOpcode.WRITE_10, "WRITE(10)").usage(0xFA, 0xFF, 0xFF, 0xFF, 0xFF, 0x3F, 0xFF, 0xFF, 0x07)
                .dataOut(BlockCdb.DATA).flags(WRITE_IO).timeouts(5, 30).handler(ReadWrite::write));
        t.add(Row.of(ScsiOpcode.WRITE_12, "WRITE(12)")
                .usage(0xFA, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x3F, 0x07)
                .dataOut(BlockCdb.DATA).flags(WRITE_IO).timeouts(5, 30).handler(ReadWrite::write));
        t.add(Row.of(ScsiOpcode.WRITE_16, "WRITE(16)")
                .usage(0xFB, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x07)
                .dataOut(BlockCdb.DATA).flags(WRITE_IO).timeouts(5, 30).handler(ReadWrite::write));
    }
}
