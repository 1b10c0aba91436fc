package io.hostwide.iscsi.initiator;

import java.util.concurrent.atomic.LongAdder;

/** Counters of which data paths a session used (striped adders: no shared cache line on the hot path). */
public final class InitiatorStats {
    final LongAdder commands = new LongAdder();
    final LongAdder immediateDataPdus = new LongAdder();
    final LongAdder unsolicitedDataOutPdus = new LongAdder();
    final LongAdder r2ts = new LongAdder();
    final LongAdder dataInPdus = new LongAdder();
    final LongAdder nopInPings = new LongAdder();
    final LongAdder nopOutPingsAnswered = new LongAdder();
    final LongAdder windowClosed = new LongAdder();
    final LongAdder heldForBatch = new LongAdder();
    final LongAdder polledPdus = new LongAdder();

    /** SCSI Command PDUs sent. */
    public long commands() { return commands.sum(); }

    /** Command PDUs that carried immediate data (RFC 7143 §3.2.4.2). */
    public long immediateDataPdus() { return immediateDataPdus.sum(); }

    /** Unsolicited Data-Out PDUs (TTT 0xffffffff, InitialR2T=No). */
    public long unsolicitedDataOutPdus() { return unsolicitedDataOutPdus.sum(); }

    /** R2Ts answered. */
    public long r2ts() { return r2ts.sum(); }

    /** Data-In PDUs received. */
    public long dataInPdus() { return dataInPdus.sum(); }

    /** Target NOP-In pings answered. */
    public long nopInPings() { return nopInPings.sum(); }

    /** Our NOP-Out pings (noop_out_interval) that something answered within noop_out_timeout. */
    public long nopOutPingsAnswered() { return nopOutPingsAnswered.sum(); }

    /** Commands answered TARGET_BUSY because the CmdSN window was closed (RFC 7143 §4.2.2.1); retried later. */
    public long windowClosed() { return windowClosed.sum(); }

    /** Command PDUs held back to leave in one write with the rest of their batch (not {@code SCMD_LAST}). */
    public long heldForBatch() { return heldForBatch.sum(); }

    /** Target PDUs handled by a submitting thread that polled for its completions ({@code mq_poll}). */
    public long polledPdus() { return polledPdus.sum(); }

    @Override
    public String toString() {
        return "commands=" + commands() + " immediate=" + immediateDataPdus() + " unsolicited=" + unsolicitedDataOutPdus()
                + " r2t=" + r2ts() + " data-in=" + dataInPdus() + " nop-in=" + nopInPings() + " nop-out-answered=" + nopOutPingsAnswered()
                + " window-closed=" + windowClosed() + " held-for-batch=" + heldForBatch() + " polled=" + polledPdus();
    }
}
