package io.hostwide.tcm.pr;

import io.hostwide.scsi.spec.ScsiOpcode;
import io.hostwide.scsi.spec.ServiceAction;
import io.hostwide.tcm.dispatch.CommandTable;
import io.hostwide.tcm.dispatch.ReservationRule;
import io.hostwide.tcm.dispatch.Row;
import io.hostwide.tcm.dispatch.TransferLength;

import static io.hostwide.tcm.dispatch.CommandDescriptor.ALUA_STANDBY;

/**
 * Command table rows of the reservation layer: PERSISTENT RESERVE IN/OUT (SPC-4 §6.15-6.16) and the SPC-2
 * RESERVE/RELEASE(6)/(10) (SPC-2 §7.21-7.24). PR IN is always allowed under a reservation; PR OUT and
 * RESERVE/RELEASE are {@link ReservationRule#SPECIAL}: their handlers apply the key and CRH rules.
 */
public final class PrCommands {
    private PrCommands() {}

    private static final int F = 0xFF;
    private static final int CTRL = 0x07;

    public static void addTo(CommandTable t) {
        for (int sa : new int[] {ServiceAction.PRIN_READ_KEYS, ServiceAction.PRIN_READ_RESERVATION,
                ServiceAction.PRIN_REPORT_CAPABILITIES, ServiceAction.PRIN_READ_FULL_STATUS}) {
            t.add(Row.of(ScsiOpcode.PERSISTENT_RESERVE_IN, "PERSISTENT RESERVE IN").sa(sa)
                    .usage(0x1F, 0, 0, 0, 0, 0, F, F, CTRL).dataIn(TransferLength.field(7, 2))
                    .reservation(ReservationRule.ALWAYS_ALLOWED).alua(ALUA_STANDBY).timeouts(1, 5)
                    .handler(PersistentReserveIn::execute));
        }
        for (int sa : new int[] {ServiceAction.PROUT_REGISTER, ServiceAction.PROUT_RESERVE, ServiceAction.PROUT_RELEASE,
                ServiceAction.PROUT_CLEAR, ServiceAction.PROUT_PREEMPT, ServiceAction.PROUT_PREEMPT_AND_ABORT,
                ServiceAction.PROUT_REGISTER_AND_IGNORE_EXISTING_KEY, ServiceAction.PROUT_REGISTER_AND_MOVE}) {
            t.add(Row.of(ScsiOpcode.PERSISTENT_RESERVE_OUT, "PERSISTENT RESERVE OUT").sa(sa)
                    .usage(0x1F, F, 0, 0, F, F, F, F, CTRL).dataOut(TransferLength.field(5, 4))
                    .reservation(ReservationRule.SPECIAL).alua(ALUA_STANDBY).timeouts(5, 30)
                    .handler(PersistentReserveOut::execute));
        }
        t.add(Row.of(ScsiOpcode.RESERVE_6, "RESERVE(6)").usage(0, 0, 0, 0, CTRL)
                .reservation(ReservationRule.SPECIAL).timeouts(1, 5).handler(Spc2Reservations::reserve));
        t.add(Row.of(ScsiOpcode.RELEASE_6, "RELEASE(6)").usage(0, 0, 0, 0, CTRL)
                .reservation(ReservationRule.SPECIAL).timeouts(1, 5).handler(Spc2Reservations::release));
        t.add(Row.of(ScsiOpcode.RESERVE_10, "RESERVE(10)").usage(0, 0, 0, 0, 0, 0, 0, 0, CTRL)
                .reservation(ReservationRule.SPECIAL).timeouts(1, 5).handler(Spc2Reservations::reserve));
        t.add(Row.of(ScsiOpcode.RELEASE_10, "RELEASE(10)").usage(0, 0, 0, 0, 0, 0, 0, 0, CTRL)
                .reservation(ReservationRule.SPECIAL).timeouts(1, 5).handler(Spc2Reservations::release));
    }
}
