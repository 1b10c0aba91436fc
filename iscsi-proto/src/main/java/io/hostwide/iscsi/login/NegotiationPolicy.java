package io.hostwide.iscsi.login;

/**
 * What the target accepts in operational negotiation: its side of each RFC 7143 §13 key. The result for each key is
 * computed from the initiator's offer and these values by the key's {@link KeyType}.
 *
 * @param maxRecvDataSegmentLength what the target declares it can receive (RFC 7143 §13.12)
 * @param maxBurstLength the largest MaxBurstLength accepted (§13.13)
 * @param firstBurstLength the largest FirstBurstLength accepted (§13.14)
 * @param maxOutstandingR2t the largest MaxOutstandingR2T accepted (§13.17)
 * @param maxConnections the largest MaxConnections accepted (§13.2)
 * @param initialR2t the target's InitialR2T (No lets initiators send unsolicited data, §13.10)
 * @param immediateData the target's ImmediateData (§13.11)
 * @param headerDigestCrc32c whether CRC32C header digests are accepted (§13.1)
 * @param dataDigestCrc32c whether CRC32C data digests are accepted
 * @param defaultTime2Wait the target's DefaultTime2Wait (§13.15)
 * @param defaultTime2Retain the target's DefaultTime2Retain (§13.16; 0 since ERL 0 keeps no state for reinstatement)
 */
public record NegotiationPolicy(
        int maxRecvDataSegmentLength, int maxBurstLength, int firstBurstLength, int maxOutstandingR2t,
        int maxConnections, boolean initialR2t, boolean immediateData, boolean headerDigestCrc32c,
        boolean dataDigestCrc32c, int defaultTime2Wait, int defaultTime2Retain) {

    /** Defaults tuned for throughput: 256 KiB segments, 1 MiB bursts, unsolicited and immediate data allowed. */
    public static NegotiationPolicy defaults() {
        return new NegotiationPolicy(262144, 1048576, 262144, 16, 8, false, true, true, true, 2, 20);
    }
}
