package io.hostwide.iscsi.server;

import io.hostwide.iscsi.pdu.NopOut;
import io.hostwide.iscsi.pdu.Pdu;
import io.hostwide.iscsi.pdu.ScsiCommand;
import io.hostwide.iscsi.pdu.TextRequest;
import java.nio.ByteBuffer;

/** Copies a decoded PDU's buffers out of the receive buffer, for PDUs kept past the current read (MC/S reorder). */
final class PduCopies {
    private PduCopies() {}

    static ByteBuffer copy(ByteBuffer b) {
        ByteBuffer c = ByteBuffer.allocate(b.remaining());
        c.put(b.duplicate()).flip();
        return c;
    }

    static Pdu detach(Pdu p) {
        return switch (p) {
            case ScsiCommand c -> new ScsiCommand(c.immediate(), c.fin(), c.read(), c.write(), c.attr(), c.lun(),
                    c.initiatorTaskTag(), c.expectedDataTransferLength(), c.cmdSn(), c.expStatSn(), copy(c.cdb()),
                    c.expectedBidirectionalReadDataLength(), copy(c.data()));
            case NopOut n -> new NopOut(n.immediate(), n.lun(), n.initiatorTaskTag(), n.targetTransferTag(), n.cmdSn(),
                    n.expStatSn(), copy(n.data()));
            case TextRequest t -> new TextRequest(t.immediate(), t.fin(), t.cont(), t.lun(), t.initiatorTaskTag(),
                    t.targetTransferTag(), t.cmdSn(), t.expStatSn(), copy(t.data()));
            case io.hostwide.iscsi.pdu.DataOut d -> new io.hostwide.iscsi.pdu.DataOut(d.fin(), d.lun(),
                    d.initiatorTaskTag(), d.targetTransferTag(), d.expStatSn(), d.dataSn(), d.bufferOffset(),
                    copy(d.data()));
            default -> p; // no data segment
        };
    }
}
