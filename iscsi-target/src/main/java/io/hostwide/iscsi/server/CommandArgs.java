package io.hostwide.iscsi.server;

import io.hostwide.iscsi.pdu.HotPdu;
import io.hostwide.iscsi.pdu.Pdu;
import io.hostwide.iscsi.pdu.ScsiCommand;
import io.hostwide.iscsi.spec.Bhs;
import java.nio.ByteBuffer;

/**
 * The fields of one SCSI Command, from a record or from the receive-buffer flyweight, so that one code path starts
 * tasks for both. Reused per connection (reader thread); never escapes.
 */
final class CommandArgs {
    boolean immediate;
    boolean fin;
    boolean read;
    boolean write;
    int attr;
    long lun;
    int itt;
    int edtl;
    int cmdSn;
    long bidi;
    ByteBuffer cdb;
    int cdbAt;
    int cdbLength;
    ByteBuffer data;
    int dataAt;
    int dataLength;
    private ScsiCommand record;
    private HotPdu view;

    CommandArgs of(ScsiCommand c) {
        immediate = c.immediate();
        fin = c.fin();
        read = c.read();
        write = c.write();
        attr = c.attr();
        lun = c.lun();
        itt = c.initiatorTaskTag();
        edtl = c.expectedDataTransferLength();
        cmdSn = c.cmdSn();
        bidi = c.expectedBidirectionalReadDataLength();
        cdb = c.cdb();
        cdbAt = c.cdb().position();
        cdbLength = c.cdb().remaining();
        data = c.data();
        dataAt = c.data().position();
        dataLength = c.data().remaining();
        record = c;
        view = null;
        return this;
    }

    CommandArgs of(HotPdu v) {
        immediate = v.immediate();
        fin = v.fin();
        read = v.read();
        write = v.write();
        attr = v.attr();
        lun = v.lun();
        itt = v.initiatorTaskTag();
        edtl = v.expectedDataTransferLength();
        cmdSn = v.cmdSn();
        bidi = -1;
        cdb = v.buffer();
        cdbAt = v.cdbAt();
        cdbLength = Bhs.ScsiCommand.CDB_LENGTH;
        data = v.buffer();
        dataAt = v.dataAt();
        dataLength = v.dataLength();
        record = null;
        view = v;
        return this;
    }

    /** The command's BHS, for a Reject. */
    ByteBuffer header() {
        if (view != null) {
            return view.copyHeader();
        }
        ByteBuffer h = ByteBuffer.allocate(Bhs.LENGTH);
        record.writeBhs(h, 0);
        return h;
    }

    /** A detached record of this command, for keeping it past the current read (CmdSN reordering). */
    Pdu detached() {
        return view != null ? view.toRecord() : PduCopies.detach(record);
    }
}
