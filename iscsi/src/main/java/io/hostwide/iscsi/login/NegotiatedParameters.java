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
}
