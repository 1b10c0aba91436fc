package io.hostwide.tcm.xcopy;

import io.hostwide.scsi.spec.ScsiOpcode;
import io.hostwide.scsi.spec.ServiceAction;
import io.hostwide.tcm.dispatch.CommandDescriptor;
import io.hostwide.tcm.dispatch.CommandTable;
import io.hostwide.tcm.dispatch.ReservationRule;
import io.hostwide.tcm.dispatch.Row;
import io.hostwide.tcm.dispatch.TransferLength;

/**
 * What the copy manager adds to a command table: EXTENDED COPY (LID1) and RECEIVE COPY RESULTS (SPC-4 §6.4,
 * §6.18), and the Third-party Copy VPD page (8Fh) that lists them.
 */
public final class CopyCommands {
    private CopyCommands() {}

    private static final int F = 0xFF;

    public static void addTo(CommandTable t) {
        t.addVpdPage(ThirdPartyCopyVpd.PAGE, ThirdPartyCopyVpd::write);
        t.add(Row.of(ScsiOpcode.EXTENDED_COPY, "EXTENDED COPY(LID1)").sa(ServiceAction.XCOPY_LID1)
                .usage(0x1F, 0, 0, 0, 0, 0, 0, 0, 0, F, F, F, F, 0, 0x07).dataOut(TransferLength.field(10, 4))
                .flags(CommandDescriptor.MEDIUM_ACCESS | CommandDescriptor.BACKSTORE_IO)
                .reservation(ReservationRule.WRITE).timeouts(30, 600).handler(ExtendedCopy::execute));
        for (int sa : new int[] {ServiceAction.RCR_COPY_STATUS, ServiceAction.RCR_OPERATING_PARAMETERS,
                ServiceAction.RCR_FAILED_SEGMENT_DETAILS}) {
            t.add(Row.of(ScsiOpcode.RECEIVE_COPY_RESULTS, "RECEIVE COPY RESULTS").sa(sa)
                    .usage(0x1F, F, 0, 0, 0, 0, 0, 0, 0, F, F, F, F, 0, 0x07).dataIn(TransferLength.field(10, 4))
                    .reservation(ReservationRule.READ).timeouts(1, 5).handler(ReceiveCopyResults::execute));
        }
    }
}
