package io.hostwide.target.spc;

import io.hostwide.scsi.spec.ScsiOpcode;
import io.hostwide.target.core.CommandDescriptor;
import io.hostwide.target.core.ReservationRule;
import io.hostwide.target.core.Row;
import io.hostwide.target.core.TransferLength;

import static io.hostwide.target.core.CommandDescriptor.ALUA_STANDBY;
import static io.hostwide.target.core.CommandDescriptor.ALUA_TRANSITIONING;
import static io.hostwide.target.core.CommandDescriptor.ALUA_UNAVAILABLE;
import static io.hostwide.target.core.CommandDescriptor.HEAD_OF_QUEUE;
import static io.hostwide.target.core.CommandDescriptor.MEDIUM_ACCESS;
import static io.hostwide.target.core.CommandDescriptor.NO_LUN_OK;
import static io.hostwide.target.core.CommandDescriptor.UA_EXEMPT;

/** Rows of the SPC-4 commands every device type shares (usage data per SPC-4 §6). */
public final class SpcCommands {
    private SpcCommands() {}

    static final int ALUA_ALL = ALUA_STANDBY | ALUA_UNAVAILABLE | ALUA_TRANSITIONING;

    public static CommandDescriptor testUnitReady() {
        return Row.of(ScsiOpcode.TEST_UNIT_READY, "TEST UNIT READY").usage(0, 0, 0, 0, 0x07)
                .flags(MEDIUM_ACCESS).reservation(ReservationRule.READ).timeouts(1, 5)
                .handler(cmd -> CommandDescriptor.DONE);
    }

    public static CommandDescriptor inquiry() {
        return Row.of(ScsiOpcode.INQUIRY, "INQUIRY").usage(0x01, 0xFF, 0xFF, 0xFF, 0x07)
                .dataIn(TransferLength.field(3, 2)).flags(UA_EXEMPT | HEAD_OF_QUEUE | NO_LUN_OK)
                .reservation(ReservationRule.ALWAYS_ALLOWED).alua(ALUA_ALL).timeouts(1, 5)
                .handler(Inquiry::execute);
    }

    public static CommandDescriptor reportLuns() {
        return Row.of(ScsiOpcode.REPORT_LUNS, "REPORT LUNS").usage(0, 0xFF, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0x07)
                .dataIn(TransferLength.field(6, 4)).flags(UA_EXEMPT | HEAD_OF_QUEUE | NO_LUN_OK)
                .reservation(ReservationRule.ALWAYS_ALLOWED).alua(ALUA_ALL).timeouts(1, 5)
                .handler(ReportLuns::execute);
    }

    public static CommandDescriptor requestSense() {
        return Row.of(ScsiOpcode.REQUEST_SENSE, "REQUEST SENSE").usage(0x01, 0, 0, 0xFF, 0x07)
                .dataIn(TransferLength.field(4, 1)).flags(UA_EXEMPT | NO_LUN_OK)
                .reservation(ReservationRule.ALWAYS_ALLOWED).alua(ALUA_ALL).timeouts(1, 5)
                .handler(RequestSense::execute);
    }
}
