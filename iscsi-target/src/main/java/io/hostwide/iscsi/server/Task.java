package io.hostwide.iscsi.server;

import io.hostwide.tcm.spi.TargetCommand;

/**
 * One SCSI command of a connection from its SCSI Command PDU to its response; at ERL 0 a task stays with the
 * connection it arrived on (connection allegiance, RFC 7143 §7.2). Pooled per connection and reused;
 * owned by the connection's reader until submitted, then by whichever thread completes it.
 */
final class Task {
    static final int WAITING_DATA = 1;
    static final int SUBMITTED = 2;

    final WriteSequence writes;
    final Connection connection;
    TargetCommand cmd;
    /** The core's Data-Out buffer of a write, filled at Data-Out buffer offsets. */
    java.nio.ByteBuffer dataOut;
    int itt;
    long lun;
    int expectedLength;
    /** True when the command took a slot of the CmdSN window (non-immediate): released on completion. */
    boolean counted;
    int state;
    int dataInSn;
    int r2tCount;

    Task(Connection connection, int maxOutstandingR2t) {
        this.connection = connection;
        this.writes = new WriteSequence(maxOutstandingR2t);
    }
}
