package io.hostwide.iscsi.server;

import io.hostwide.iscsi.spec.Codes;

/**
 * Where a write command's data is and what to ask for next, RFC 7143 §3.2.4.2 (immediate and unsolicited data), §11.7 (Data-Out) and §11.8 (R2T): immediate data in the command PDU, then unsolicited Data-Out (TTT
 * 0xffffffff) while the command's F bit was 0, up to FirstBurstLength, then Data-Out solicited by R2Ts of at most
 * MaxBurstLength each, with at most MaxOutstandingR2T of them open. DataPDUInOrder and DataSequenceInOrder are Yes, so
 * every sequence must arrive in offset order with DataSN counting from 0 (§11.7.5). Pure state, reused per
 * task, no allocation; the connection thread owns it.
 */
final class WriteSequence {
    /** {@link #onDataOut} results. */
    static final int OK = 0;
    static final int DONE = 1;
    /** The Data-Out does not fit the sequence (bad TTT, offset, length or DataSN): a protocol error. */
    static final int PROTOCOL_ERROR = 2;

    private int expected;
    private int firstBurst;
    private int maxBurst;
    private int maxR2t;

    private boolean unsolicitedOpen;
    private int unsolicitedNextOffset;
    private int unsolicitedNextDataSn;
    private int unsolicitedLimit;
    private int received;
    private int solicitFrom;
    private int r2tSn;

    private final int[] r2tTtt;
    private final int[] r2tOffset;
    private final int[] r2tLength;
    private final int[] r2tNextOffset;
    private final int[] r2tNextDataSn;
    private int openR2ts;

    WriteSequence(int maxOutstandingR2tCap) {
        r2tTtt = new int[maxOutstandingR2tCap];
        r2tOffset = new int[maxOutstandingR2tCap];
        r2tLength = new int[maxOutstandingR2tCap];
        r2tNextOffset = new int[maxOutstandingR2tCap];
        r2tNextDataSn = new int[maxOutstandingR2tCap];
    }

    /**
     * Starts a write of {@code expectedLength} bytes of which {@code immediate} came with the command.
     *
     * @param commandFinal the command PDU's F bit: 0 announces unsolicited Data-Out (RFC 7143 §11.3.1)
     * @param initialR2t the negotiated InitialR2T: Yes forbids unsolicited Data-Out
     */
    void start(int expectedLength, int immediate, boolean commandFinal, boolean initialR2t, int firstBurstLength,
            int maxBurstLength, int maxOutstandingR2t) {
        expected = expectedLength;
        firstBurst = firstBurstLength;
        maxBurst = maxBurstLength;
        maxR2t = Math.min(maxOutstandingR2t, r2tTtt.length);
        received = immediate;
        unsolicitedLimit = Math.min(firstBurst, expected);
        unsolicitedOpen = !commandFinal && !initialR2t && immediate < unsolicitedLimit;
        unsolicitedNextOffset = immediate;
        unsolicitedNextDataSn = 0;
        solicitFrom = immediate;
        r2tSn = 0;
        openR2ts = 0;
    }

    boolean complete() {
        return received >= expected;
    }

    int received() {
        return received;
    }

    /** True while the initiator may still send unsolicited Data-Out. */
    boolean unsolicitedOpen() {
        return unsolicitedOpen;
    }

    /**
     * Plans the next R2T if one may be sent now: returns its R2TSN and fills {@code out} with
     * {offset, length}, or returns -1. The caller gives each R2T a fresh Target Transfer Tag {@code ttt}.
     */
    int nextR2t(int ttt, int[] out) {
        if (unsolicitedOpen || openR2ts >= maxR2t || solicitFrom >= expected) {
            return -1;
        }
        int len = Math.min(maxBurst, expected - solicitFrom);
        int slot = openR2ts++;
        r2tTtt[slot] = ttt;
        r2tOffset[slot] = solicitFrom;
        r2tLength[slot] = len;
        r2tNextOffset[slot] = solicitFrom;
        r2tNextDataSn[slot] = 0;
        out[0] = solicitFrom;
        out[1] = len;
        solicitFrom += len;
        return r2tSn++;
    }

    /** Checks one Data-Out against the sequence it claims to belong to and accounts for it. */
    int onDataOut(int ttt, int dataSn, int bufferOffset, int length, boolean fin) {
        if (ttt == Codes.RESERVED_TAG) {
            return unsolicited(dataSn, bufferOffset, length, fin);
        }
        for (int i = 0; i < openR2ts; i++) {
            if (r2tTtt[i] == ttt) {
                return solicited(i, dataSn, bufferOffset, length, fin);
            }
        }
        return PROTOCOL_ERROR;
    }

    private int unsolicited(int dataSn, int bufferOffset, int length, boolean fin) {
        int end = bufferOffset + length;
        if (!unsolicitedOpen || dataSn != unsolicitedNextDataSn || bufferOffset != unsolicitedNextOffset
                || length < 0 || end > unsolicitedLimit || end < bufferOffset) {
            return PROTOCOL_ERROR;
        }
        unsolicitedNextDataSn++;
        unsolicitedNextOffset = end;
        received += length;
        if (fin || end == unsolicitedLimit) {
            unsolicitedOpen = false;
            solicitFrom = end;
        }
        return complete() ? DONE : OK;
    }

    private int solicited(int slot, int dataSn, int bufferOffset, int length, boolean fin) {
        int end = bufferOffset + length;
        int r2tEnd = r2tOffset[slot] + r2tLength[slot];
        if (dataSn != r2tNextDataSn[slot] || bufferOffset != r2tNextOffset[slot] || length < 0 || end > r2tEnd
                || end < bufferOffset || (fin && end != r2tEnd)) {
            return PROTOCOL_ERROR;
        }
        r2tNextDataSn[slot]++;
        r2tNextOffset[slot] = end;
        received += length;
        if (end == r2tEnd) { // the R2T is satisfied: free its slot
            int last = --openR2ts;
            r2tTtt[slot] = r2tTtt[last];
            r2tOffset[slot] = r2tOffset[last];
            r2tLength[slot] = r2tLength[last];
            r2tNextOffset[slot] = r2tNextOffset[last];
            r2tNextDataSn[slot] = r2tNextDataSn[last];
        }
        return complete() ? DONE : OK;
    }
}
