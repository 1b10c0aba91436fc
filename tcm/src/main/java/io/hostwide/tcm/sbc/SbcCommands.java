package io.hostwide.tcm.sbc;

import io.hostwide.scsi.spec.ScsiOpcode;
import io.hostwide.scsi.spec.ServiceAction;
import io.hostwide.tcm.dispatch.CommandDescriptor;
import io.hostwide.tcm.dispatch.CommandTable;
import io.hostwide.tcm.dispatch.ReservationRule;
import io.hostwide.tcm.dispatch.Row;
import io.hostwide.tcm.dispatch.TransferLength;

import static io.hostwide.tcm.dispatch.CommandDescriptor.ALUA_STANDBY;
import static io.hostwide.tcm.dispatch.CommandDescriptor.BACKSTORE_IO;
import static io.hostwide.tcm.dispatch.CommandDescriptor.EXACT_DATA_OUT;
import static io.hostwide.tcm.dispatch.CommandDescriptor.MEDIUM_ACCESS;
import static io.hostwide.tcm.dispatch.CommandDescriptor.TRUNCATABLE_DATA_OUT;
import static io.hostwide.tcm.dispatch.CommandDescriptor.TRY_NOWAIT;
import static io.hostwide.tcm.dispatch.CommandDescriptor.WRITES_MEDIUM;

/**
 * The SBC-4 rows of a direct-access block device's command table (peripheral device type 00h); the core adds them
 * to the SPC-4 rows and those of the other command sets. Chosen per device from its attributes at creation: UNMAP
 * exists only when the device is thin and the backstore can deallocate, COMPARE AND WRITE / WRITE ATOMIC /
 * SANITIZE only when emulated — so REPORT SUPPORTED OPERATION CODES and INVALID COMMAND OPERATION CODE always
 * agree. Usage data follows the SBC-4 CDB figures: a bit is set when the device server examines it; obsolete bits
 * are reserved.
 */
public final class SbcCommands {
    private SbcCommands() {}

    static final int READ_IO = MEDIUM_ACCESS | BACKSTORE_IO;
    static final int ASYNC_IO = CommandDescriptor.ASYNC_BACKSTORE_IO;
    static final int WRITE_IO = MEDIUM_ACCESS | BACKSTORE_IO | WRITES_MEDIUM;
    /** READ: tried without blocking on the submitting thread first (see ReadWrite.readNow). */
    static final int BLOCK_READ = READ_IO | TRY_NOWAIT;
    /** WRITE and WRITE AND VERIFY: an expected length short of the CDB's by whole blocks truncates the write. */
    static final int BLOCK_WRITE = WRITE_IO | TRUNCATABLE_DATA_OUT;
    /** WRITE: tried without blocking on the submitting thread first (see ReadWrite.writeNow). */
    static final int BLOCK_WRITE_NOWAIT = BLOCK_WRITE | TRY_NOWAIT;
    private static final int F = 0xFF;
    private static final int CTRL = 0x07;

    /** Adds the SBC rows a device with these capabilities has. */
    public static void addTo(CommandTable t, boolean thin, boolean caw, boolean writeAtomic, boolean sanitize) {
        readWrite(t);
        verify(t);
        cache(t);
        provisioning(t, thin, sanitize);
        atomics(t, caw, writeAtomic);
        medium(t);
    }

    private static void readWrite(CommandTable t) {
        t.add(Row.of(ScsiOpcode.READ_6, "READ(6)").usage(0x1F, F, F, F, CTRL)
                .dataIn(BlockCdb.DATA).flags(BLOCK_READ | ASYNC_IO).reservation(ReservationRule.READ).timeouts(5, 30)
                .handler(ReadWrite::read));
        t.add(Row.of(ScsiOpcode.READ_10, "READ(10)").usage(0xFE, F, F, F, F, 0x3F, F, F, CTRL)
                .dataIn(BlockCdb.DATA).flags(BLOCK_READ | ASYNC_IO).reservation(ReservationRule.READ).timeouts(5, 30)
                .handler(ReadWrite::read));
        t.add(Row.of(ScsiOpcode.READ_12, "READ(12)").usage(0xFE, F, F, F, F, F, F, F, F, 0x3F, CTRL)
                .dataIn(BlockCdb.DATA).flags(BLOCK_READ | ASYNC_IO).reservation(ReservationRule.READ).timeouts(5, 30)
                .handler(ReadWrite::read));
        t.add(Row.of(ScsiOpcode.READ_16, "READ(16)").usage(F, F, F, F, F, F, F, F, F, F, F, F, F, F, CTRL)
                .dataIn(BlockCdb.DATA).flags(BLOCK_READ | ASYNC_IO).reservation(ReservationRule.READ).timeouts(5, 30)
                .handler(ReadWrite::read));
        t.add(Row.of(ScsiOpcode.WRITE_6, "WRITE(6)").usage(0x1F, F, F, F, CTRL)
                .dataOut(BlockCdb.DATA).flags(BLOCK_WRITE_NOWAIT | ASYNC_IO).timeouts(5, 30)
                .handler(ReadWrite::write));
        t.add(Row.of(ScsiOpcode.WRITE_10, "WRITE(10)").usage(0xFA, F, F, F, F, 0x3F, F, F, CTRL)
                .dataOut(BlockCdb.DATA).flags(BLOCK_WRITE_NOWAIT | ASYNC_IO).timeouts(5, 30)
                .handler(ReadWrite::write));
        t.add(Row.of(ScsiOpcode.WRITE_12, "WRITE(12)").usage(0xFA, F, F, F, F, F, F, F, F, 0x3F, CTRL)
                .dataOut(BlockCdb.DATA).flags(BLOCK_WRITE_NOWAIT | ASYNC_IO).timeouts(5, 30)
                .handler(ReadWrite::write));
        t.add(Row.of(ScsiOpcode.WRITE_16, "WRITE(16)").usage(0xFB, F, F, F, F, F, F, F, F, F, F, F, F, F, CTRL)
                .dataOut(BlockCdb.DATA).flags(BLOCK_WRITE_NOWAIT | ASYNC_IO).timeouts(5, 30)
                .handler(ReadWrite::write));
        t.add(Row.of(ScsiOpcode.READ_CAPACITY_10, "READ CAPACITY(10)").usage(0, F, F, F, F, 0, 0, 0x01, CTRL)
                .dataIn((cdb, dev) -> 8).flags(MEDIUM_ACCESS).reservation(ReservationRule.ALWAYS_ALLOWED)
                .alua(ALUA_STANDBY).timeouts(1, 5).handler(ReadCapacity::capacity10));
        t.add(Row.of(ScsiOpcode.SERVICE_ACTION_IN_16, "READ CAPACITY(16)").sa(ServiceAction.READ_CAPACITY_16)
                .usage(0x1F, F, F, F, F, F, F, F, F, F, F, F, F, 0x01, CTRL)
                .dataIn(TransferLength.field(10, 4)).flags(MEDIUM_ACCESS).reservation(ReservationRule.ALWAYS_ALLOWED)
                .alua(ALUA_STANDBY).timeouts(1, 5).handler(ReadCapacity::capacity16));
    }

    private static void verify(CommandTable t) {
        t.add(Row.of(ScsiOpcode.VERIFY_10, "VERIFY(10)").usage(0xF6, F, F, F, F, 0x3F, F, F, CTRL)
                .dataOut(Verify.VERIFY_DATA).flags(READ_IO).reservation(ReservationRule.READ).timeouts(5, 60)
                .handler(Verify::verify));
        t.add(Row.of(ScsiOpcode.VERIFY_12, "VERIFY(12)").usage(0xF6, F, F, F, F, F, F, F, F, 0x3F, CTRL)
                .dataOut(Verify.VERIFY_DATA).flags(READ_IO).reservation(ReservationRule.READ).timeouts(5, 60)
                .handler(Verify::verify));
        t.add(Row.of(ScsiOpcode.VERIFY_16, "VERIFY(16)").usage(0xF6, F, F, F, F, F, F, F, F, F, F, F, F, 0x3F, CTRL)
                .dataOut(Verify.VERIFY_DATA).flags(READ_IO).reservation(ReservationRule.READ).timeouts(5, 60)
                .handler(Verify::verify));
        t.add(Row.of(ScsiOpcode.WRITE_AND_VERIFY_10, "WRITE AND VERIFY(10)").usage(0xF6, F, F, F, F, 0x3F, F, F, CTRL)
                .dataOut(BlockCdb.DATA).flags(BLOCK_WRITE).timeouts(5, 60).handler(Verify::writeAndVerify));
        t.add(Row.of(ScsiOpcode.WRITE_AND_VERIFY_12, "WRITE AND VERIFY(12)")
                .usage(0xF6, F, F, F, F, F, F, F, F, 0x3F, CTRL)
                .dataOut(BlockCdb.DATA).flags(BLOCK_WRITE).timeouts(5, 60).handler(Verify::writeAndVerify));
        t.add(Row.of(ScsiOpcode.WRITE_AND_VERIFY_16, "WRITE AND VERIFY(16)")
                .usage(0xF6, F, F, F, F, F, F, F, F, F, F, F, F, 0x3F, CTRL)
                .dataOut(BlockCdb.DATA).flags(BLOCK_WRITE).timeouts(5, 60).handler(Verify::writeAndVerify));
    }

    private static void cache(CommandTable t) {
        t.add(Row.of(ScsiOpcode.PRE_FETCH_10, "PRE-FETCH(10)").usage(0x02, F, F, F, F, 0x3F, F, F, CTRL)
                .flags(READ_IO).reservation(ReservationRule.READ).timeouts(5, 30).handler(CacheCommands::prefetch));
        t.add(Row.of(ScsiOpcode.PRE_FETCH_16, "PRE-FETCH(16)").usage(0x02, F, F, F, F, F, F, F, F, F, F, F, F, 0x3F, CTRL)
                .flags(READ_IO).reservation(ReservationRule.READ).timeouts(5, 30).handler(CacheCommands::prefetch));
        t.add(Row.of(ScsiOpcode.SYNCHRONIZE_CACHE_10, "SYNCHRONIZE CACHE(10)").usage(0x06, F, F, F, F, 0x3F, F, F, CTRL)
                .flags(READ_IO | ASYNC_IO).timeouts(10, 60).handler(CacheCommands::synchronizeCache));
        t.add(Row.of(ScsiOpcode.SYNCHRONIZE_CACHE_16, "SYNCHRONIZE CACHE(16)")
                .usage(0x06, F, F, F, F, F, F, F, F, F, F, F, F, 0x3F, CTRL)
                .flags(READ_IO | ASYNC_IO).timeouts(10, 60).handler(CacheCommands::synchronizeCache));
    }

    private static void provisioning(CommandTable t, boolean thin, boolean sanitize) {
        t.add(Row.of(ScsiOpcode.WRITE_SAME_10, "WRITE SAME(10)").usage(0xF8, F, F, F, F, 0x3F, F, F, CTRL)
                .dataOut(WriteSame.DATA).flags(WRITE_IO | EXACT_DATA_OUT).timeouts(30, 300).handler(WriteSame::execute));
        t.add(Row.of(ScsiOpcode.WRITE_SAME_16, "WRITE SAME(16)").usage(0xF9, F, F, F, F, F, F, F, F, F, F, F, F, 0x3F, CTRL)
                .dataOut(WriteSame.DATA).flags(WRITE_IO | EXACT_DATA_OUT).timeouts(30, 300).handler(WriteSame::execute));
        if (thin) {
            t.add(Row.of(ScsiOpcode.UNMAP, "UNMAP").usage(0x01, 0, 0, 0, 0, 0x3F, F, F, CTRL)
                    .dataOut(TransferLength.field(7, 2)).flags(WRITE_IO).timeouts(30, 300).handler(Unmap::execute));
        }
        t.add(Row.of(ScsiOpcode.SERVICE_ACTION_IN_16, "GET LBA STATUS").sa(ServiceAction.GET_LBA_STATUS)
                .usage(0x1F, F, F, F, F, F, F, F, F, F, F, F, F, 0, CTRL)
                .dataIn(TransferLength.field(10, 4)).flags(READ_IO).reservation(ReservationRule.READ).timeouts(5, 30)
                .handler(GetLbaStatus::execute));
        if (!sanitize) {
            return;
        }
        for (int sa : new int[] {ServiceAction.SANITIZE_OVERWRITE, ServiceAction.SANITIZE_BLOCK_ERASE,
                ServiceAction.SANITIZE_CRYPTOGRAPHIC_ERASE, ServiceAction.SANITIZE_EXIT_FAILURE_MODE}) {
            t.add(Row.of(ScsiOpcode.SANITIZE, "SANITIZE").sa(sa).usage(0xBF, 0, 0, 0, 0, 0, F, F, CTRL)
                    .dataOut(TransferLength.field(7, 2)).flags(WRITE_IO).timeouts(60, 3600).handler(Sanitize::execute));
        }
    }

    private static void atomics(CommandTable t, boolean caw, boolean writeAtomic) {
        if (caw) {
            t.add(Row.of(ScsiOpcode.COMPARE_AND_WRITE, "COMPARE AND WRITE")
                    .usage(0xF8, F, F, F, F, F, F, F, F, 0, 0, 0, F, 0x3F, CTRL)
                    .dataOut(AtomicWrites.CAW_DATA).flags(WRITE_IO | EXACT_DATA_OUT).timeouts(5, 30)
                    .handler(AtomicWrites::compareAndWrite));
        }
        t.add(Row.of(ScsiOpcode.ORWRITE_16, "ORWRITE(16)").usage(0xF8, F, F, F, F, F, F, F, F, F, F, F, F, 0x3F, CTRL)
                .dataOut(BlockCdb.DATA).flags(WRITE_IO).timeouts(5, 30).handler(AtomicWrites::orWrite));
        if (writeAtomic) {
            t.add(Row.of(ScsiOpcode.WRITE_ATOMIC_16, "WRITE ATOMIC(16)")
                    .usage(0xF8, F, F, F, F, F, F, F, F, F, F, F, F, 0x3F, CTRL)
                    .dataOut(AtomicWrites.ATOMIC_DATA).flags(WRITE_IO).timeouts(5, 30).handler(AtomicWrites::writeAtomic));
        }
    }

    private static void medium(CommandTable t) {
        t.add(Row.of(ScsiOpcode.START_STOP_UNIT, "START STOP UNIT").usage(0x01, 0, 0x0F, 0xF7, CTRL)
                .flags(BACKSTORE_IO).timeouts(10, 60).handler(Medium::startStopUnit));
        t.add(Row.of(ScsiOpcode.PREVENT_ALLOW_MEDIUM_REMOVAL, "PREVENT ALLOW MEDIUM REMOVAL").usage(0, 0, 0, 0x03, CTRL)
                .reservation(ReservationRule.SPECIAL).timeouts(1, 5).handler(Medium::preventAllow));
        t.add(Row.of(ScsiOpcode.READ_DEFECT_DATA_10, "READ DEFECT DATA(10)").usage(0, 0x1F, 0, 0, 0, 0, F, F, CTRL)
                .dataIn(TransferLength.field(7, 2)).reservation(ReservationRule.READ).timeouts(5, 30)
                .handler(Medium::readDefectData10));
        t.add(Row.of(ScsiOpcode.READ_DEFECT_DATA_12, "READ DEFECT DATA(12)").usage(0x1F, F, F, F, F, F, F, F, F, 0, CTRL)
                .dataIn(TransferLength.field(6, 4)).reservation(ReservationRule.READ).timeouts(5, 30)
                .handler(Medium::readDefectData12));
    }
}
