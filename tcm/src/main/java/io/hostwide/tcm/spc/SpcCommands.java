package io.hostwide.tcm.spc;

import io.hostwide.scsi.spec.ScsiOpcode;
import io.hostwide.scsi.spec.ServiceAction;
import io.hostwide.tcm.dispatch.CommandDescriptor;
import io.hostwide.tcm.dispatch.CommandTable;
import io.hostwide.tcm.dispatch.ReservationRule;
import io.hostwide.tcm.dispatch.Row;
import io.hostwide.tcm.dispatch.TransferLength;

import static io.hostwide.tcm.dispatch.CommandDescriptor.ALUA_STANDBY;
import static io.hostwide.tcm.dispatch.CommandDescriptor.ALUA_TRANSITIONING;
import static io.hostwide.tcm.dispatch.CommandDescriptor.ALUA_UNAVAILABLE;
import static io.hostwide.tcm.dispatch.CommandDescriptor.HEAD_OF_QUEUE;
import static io.hostwide.tcm.dispatch.CommandDescriptor.MEDIUM_ACCESS;
import static io.hostwide.tcm.dispatch.CommandDescriptor.NO_LUN_OK;
import static io.hostwide.tcm.dispatch.CommandDescriptor.UA_EXEMPT;

/** Rows of the SPC-4 commands every device type shares (usage data per SPC-4 §6). */
public final class SpcCommands {
    private SpcCommands() {}

    /** Adds every SPC-4 row a logical unit has. */
    public static void addTo(CommandTable t) {
        t.add(testUnitReady());
        t.add(inquiry());
        t.add(reportLuns());
        t.add(requestSense());
        t.add(modeSense6());
        t.add(modeSense10());
        t.add(modeSelect6());
        t.add(modeSelect10());
        t.add(reportSupportedOperationCodes());
        t.add(reportSupportedTmfs());
    }

    static final int ALUA_ALL = ALUA_STANDBY | ALUA_UNAVAILABLE | ALUA_TRANSITIONING;

    static CommandDescriptor testUnitReady() {
        return Row.of(ScsiOpcode.TEST_UNIT_READY, "TEST UNIT READY").usage(0, 0, 0, 0, 0x07)
                .flags(MEDIUM_ACCESS).reservation(ReservationRule.ALWAYS_ALLOWED).timeouts(1, 5) // SPC-4 Table 63
                .handler(cmd -> CommandDescriptor.DONE);
    }

    static CommandDescriptor inquiry() {
        return Row.of(ScsiOpcode.INQUIRY, "INQUIRY").usage(0x01, 0xFF, 0xFF, 0xFF, 0x07)
                .dataIn(TransferLength.field(3, 2)).flags(UA_EXEMPT | HEAD_OF_QUEUE | NO_LUN_OK)
                .reservation(ReservationRule.ALWAYS_ALLOWED).alua(ALUA_ALL).timeouts(1, 5)
                .handler(Inquiry::execute);
    }

    static CommandDescriptor reportLuns() {
        return Row.of(ScsiOpcode.REPORT_LUNS, "REPORT LUNS").usage(0, 0xFF, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0x07)
                .dataIn(TransferLength.field(6, 4)).flags(UA_EXEMPT | HEAD_OF_QUEUE | NO_LUN_OK)
                .reservation(ReservationRule.ALWAYS_ALLOWED).alua(ALUA_ALL).timeouts(1, 5)
                .handler(ReportLuns::execute);
    }

    static CommandDescriptor modeSense6() {
        return Row.of(ScsiOpcode.MODE_SENSE_6, "MODE SENSE(6)").usage(0x08, 0xFF, 0xFF, 0xFF, 0x07)
                .dataIn(TransferLength.field(4, 1)).reservation(ReservationRule.READ).alua(ALUA_STANDBY).timeouts(1, 5)
                .handler(ModeSense::execute);
    }

    static CommandDescriptor modeSense10() {
        return Row.of(ScsiOpcode.MODE_SENSE_10, "MODE SENSE(10)").usage(0x18, 0xFF, 0xFF, 0, 0, 0, 0xFF, 0xFF, 0x07)
                .dataIn(TransferLength.field(7, 2)).reservation(ReservationRule.READ).alua(ALUA_STANDBY).timeouts(1, 5)
                .handler(ModeSense::execute);
    }

    /** MODE SELECT runs on the I/O queue: turning WCE off flushes the backstore. */
    static CommandDescriptor modeSelect6() {
        return Row.of(ScsiOpcode.MODE_SELECT_6, "MODE SELECT(6)").usage(0x11, 0, 0, 0xFF, 0x07)
                .dataOut(TransferLength.field(4, 1)).flags(CommandDescriptor.BACKSTORE_IO)
                .alua(ALUA_STANDBY).timeouts(1, 5).handler(ModeSelect::execute);
    }

    static CommandDescriptor modeSelect10() {
        return Row.of(ScsiOpcode.MODE_SELECT_10, "MODE SELECT(10)").usage(0x11, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0x07)
                .dataOut(TransferLength.field(7, 2)).flags(CommandDescriptor.BACKSTORE_IO)
                .alua(ALUA_STANDBY).timeouts(1, 5).handler(ModeSelect::execute);
    }

    static CommandDescriptor reportSupportedOperationCodes() {
        return Row.of(ScsiOpcode.MAINTENANCE_IN, "REPORT SUPPORTED OPERATION CODES")
                .sa(ServiceAction.REPORT_SUPPORTED_OPERATION_CODES)
                .usage(0x1F, 0x87, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0x07)
                .dataIn(TransferLength.field(6, 4)).reservation(ReservationRule.READ).alua(ALUA_ALL).timeouts(1, 5)
                .handler(ReportSupportedOperationCodes::execute);
    }

    static CommandDescriptor reportSupportedTmfs() {
        return Row.of(ScsiOpcode.MAINTENANCE_IN, "REPORT SUPPORTED TASK MANAGEMENT FUNCTIONS")
                .sa(ServiceAction.REPORT_SUPPORTED_TASK_MANAGEMENT_FUNCTIONS)
                .usage(0x1F, 0x80, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0x07)
                .dataIn(TransferLength.field(6, 4)).reservation(ReservationRule.READ).alua(ALUA_ALL).timeouts(1, 5)
                .handler(ReportSupportedTmfs::execute);
    }

    static CommandDescriptor requestSense() {
        return Row.of(ScsiOpcode.REQUEST_SENSE, "REQUEST SENSE").usage(0x01, 0, 0, 0xFF, 0x07)
                .dataIn(TransferLength.field(4, 1)).flags(UA_EXEMPT | NO_LUN_OK)
                .reservation(ReservationRule.ALWAYS_ALLOWED).alua(ALUA_ALL).timeouts(1, 5)
                .handler(RequestSense::execute);
    }
}
