package io.hostwide.tcm.core;

import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.scsi.spec.SenseData;
import io.hostwide.tcm.dispatch.CommandDescriptor;
import io.hostwide.tcm.spi.Sense;
import io.hostwide.tcm.spi.SenseReason;
import io.hostwide.tcm.spi.TargetCommand;

import java.nio.ByteBuffer;

/**
 * How one command ends: the reason a handler or gate failed it (with the details its sense data carries), the
 * Data-In it produced, and — once {@link #finish} ran at completion — the status, sense bytes, Data-In length to
 * send and residual the fabric reads (SAM-5 §5.4.3). One per pooled command, reset for each use; touched by one
 * thread at a time, like the command.
 */
final class Outcome {
    int status;
    final byte[] sense = new byte[Sense.MAX_LENGTH];
    int senseLength;
    SenseReason reason;
    private int uaAscAscq;
    private int senseKeySpecific = -1;
    private long information;
    private boolean informationValid;
    ByteBuffer dataIn;
    private int dataInCapacity;
    private int dataInLength;
    int dataInSend;
    int residualKind;
    int residualCount;
    /** The Data-Out did not match the CDB: the residual was set then and {@link #finish} keeps it. */
    boolean dataOutMismatch;

    void reset() {
        status = ScsiStatus.GOOD;
        senseLength = 0;
        reason = null;
        uaAscAscq = 0;
        senseKeySpecific = -1;
        informationValid = false;
        dataIn = null;
        dataInCapacity = 0;
        dataInLength = 0;
        dataInSend = 0;
        residualKind = TargetCommand.RESIDUAL_NONE;
        residualCount = 0;
        dataOutMismatch = false;
    }

    void fail(SenseReason r) {
        this.reason = r;
        this.senseKeySpecific = -1;
        this.informationValid = false;
    }

    /** A field pointer (SPC-4 §4.5.2.4.2) into the CDB ({@code inCdb}) or the parameter data. */
    void failField(SenseReason r, boolean inCdb, int byteOffset, int bit) {
        fail(r);
        this.senseKeySpecific = SenseData.fieldPointer(inCdb, byteOffset, bit);
    }

    void failWithProgress(SenseReason r, int progress) {
        fail(r);
        this.senseKeySpecific = Sense.progressIndication(progress);
    }

    void failWithInformation(SenseReason r, long info) {
        fail(r);
        this.information = info;
        this.informationValid = true;
    }

    void failUnitAttention(int ascAscq) {
        fail(SenseReason.UNIT_ATTENTION);
        this.uaAscAscq = ascAscq;
    }

    void dataIn(ByteBuffer buffer, int capacity) {
        this.dataIn = buffer;
        this.dataInCapacity = capacity;
    }

    void dataInLength(int length) { this.dataInLength = length; }

    /** Data-In to transfer: position 0, limit = bytes to send. */
    ByteBuffer dataInToSend() {
        return dataIn == null ? BufferCache.EMPTY : dataIn.limit(dataInSend).position(0);
    }

    /** Turns the outcome into status, sense bytes, the Data-In length to send and the residual. */
    void finish(boolean descriptorSense, CommandDescriptor descriptor, long cdbTransferLength, int expectedIn,
                int expectedOut) {
        if (reason != null) {
            status = reason.status();
            dataInSend = 0;
            if (reason.hasSense()) {
                int asc = reason == SenseReason.UNIT_ATTENTION ? uaAscAscq : reason.ascAscq();
                senseLength = Sense.encode(sense, reason.senseKey(), asc, informationValid, information,
                        senseKeySpecific, descriptorSense);
            }
            if (!dataOutMismatch) {
                residual(0, expectedIn + expectedOut);
            }
            return;
        }
        if (descriptor != null && descriptor.direction() == CommandDescriptor.DATA_IN) {
            long produced = Math.min(Math.max(dataInLength, 0), cdbTransferLength);
            if (dataIn != null) {
                produced = Math.min(produced, dataInCapacity);
            } else {
                produced = 0;
            }
            dataInSend = (int) Math.min(produced, expectedIn);
            residual(produced, expectedIn);
        } else if (!dataOutMismatch) {
            long used = descriptor != null && descriptor.direction() == CommandDescriptor.DATA_OUT ? cdbTransferLength : 0;
            dataInSend = 0;
            residual(used, expectedOut + expectedIn);
        }
    }

    /** SAM-5 §5.4.3: overflow when the command wanted more than the transport expected, underflow when less. */
    void residual(long wanted, long expected) {
        if (wanted > expected) {
            residualKind = TargetCommand.RESIDUAL_OVERFLOW;
            residualCount = (int) Math.min(Integer.MAX_VALUE, wanted - expected);
        } else if (wanted < expected) {
            residualKind = TargetCommand.RESIDUAL_UNDERFLOW;
            residualCount = (int) Math.min(Integer.MAX_VALUE, expected - wanted);
        } else {
            residualKind = TargetCommand.RESIDUAL_NONE;
            residualCount = 0;
        }
    }
}
