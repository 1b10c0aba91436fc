package io.hostwide.iscsi.login;

/**
 * The operational parameters a login settled, RFC 7143 §13. Session-wide values apply to every connection of the
 * session; {@code headerDigest}, {@code dataDigest} and the two MaxRecvDataSegmentLengths are per connection.
 *
 * @param initiatorMaxRecvDataSegmentLength the most the target may send in one PDU's data segment
 * @param targetMaxRecvDataSegmentLength the most the initiator may send (what the target declared)
 */
public record NegotiatedParameters(
        boolean headerDigest, boolean dataDigest, int initiatorMaxRecvDataSegmentLength,
        int targetMaxRecvDataSegmentLength, int maxBurstLength, int firstBurstLength, boolean initialR2t,
        boolean immediateData, int maxOutstandingR2t, boolean dataPduInOrder, boolean dataSequenceInOrder,
        int errorRecoveryLevel, int maxConnections, int defaultTime2Wait, int defaultTime2Retain) {

    /**
     * The parameters of a connection added to a session: the session-wide values the leading login settled, with this
     * connection's own HeaderDigest, DataDigest and MaxRecvDataSegmentLengths (RFC 7143 §13: LO keys are irrelevant on
     * the other connections, CO keys are per connection).
     */
    public NegotiatedParameters forConnectionOf(NegotiatedParameters session) {
        return new NegotiatedParameters(headerDigest, dataDigest, initiatorMaxRecvDataSegmentLength,
                targetMaxRecvDataSegmentLength, session.maxBurstLength, session.firstBurstLength, session.initialR2t,
                session.immediateData, session.maxOutstandingR2t, session.dataPduInOrder, session.dataSequenceInOrder,
                session.errorRecoveryLevel, session.maxConnections, session.defaultTime2Wait,
                session.defaultTime2Retain);
    }
}
