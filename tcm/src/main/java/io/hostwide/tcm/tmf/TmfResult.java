package io.hostwide.tcm.tmf;

/**
 * The outcome of one task management request.
 *
 * @param function       what was asked
 * @param response       the service response
 * @param abortedTags    tags of the requesting I_T nexus's commands this function aborted: the core completes
 *                       each through {@code Fabric.complete} with {@code responseSuppressed()} set, after which
 *                       this result is delivered (commands of other nexuses end with TASK ABORTED status)
 * @param additionalResponseInformation QUERY ASYNCHRONOUS EVENT (SAM-5 §7.12): byte 0 UADE DEPTH (bits 5..4) and
 *                       SENSE KEY (bits 3..0), byte 1 ASC, byte 2 ASCQ, as a 24-bit value; 0 otherwise
 */
public record TmfResult(TmfFunction function, TmfResponse response, long[] abortedTags,
                        int additionalResponseInformation) {

    static TmfResult of(TmfFunction f, TmfResponse r) { return new TmfResult(f, r, new long[0], 0); }
}
