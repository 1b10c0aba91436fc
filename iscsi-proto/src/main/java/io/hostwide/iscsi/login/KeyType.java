package io.hostwide.iscsi.login;

/** How a key's result is computed, RFC 7143 §6.2 and the "Result function" of each key in §13. */
public enum KeyType {
    /** Numerical, result is the smaller of offer and answer (e.g. MaxBurstLength). */
    NUMERIC_MIN,
    /** Numerical, result is the larger (DefaultTime2Wait). */
    NUMERIC_MAX,
    /** Boolean, result is offer OR answer (InitialR2T, DataPDUInOrder, DataSequenceInOrder). */
    BOOLEAN_OR,
    /** Boolean, result is offer AND answer (ImmediateData). */
    BOOLEAN_AND,
    /** List; the answer is the first value of the offer the responder accepts (HeaderDigest, AuthMethod). */
    LIST,
    /** Declarative: stated by one side, not answered (MaxRecvDataSegmentLength, InitiatorName). */
    DECLARATIVE
}
