package io.hostwide.tcm.dispatch;

/**
 * How a command fares against a persistent reservation held by another I_T nexus (SPC-4 §5.13.1 Table 63),
 * read by the reservation gate.
 */
public enum ReservationRule {
    /** Allowed under every reservation type (INQUIRY, REPORT LUNS, REQUEST SENSE, READ CAPACITY, ...). */
    ALWAYS_ALLOWED,
    /** Reads the medium or device state: allowed under Write Exclusive types, conflicts under Exclusive Access. */
    READ,
    /** Changes the medium or device state: conflicts for non-holders (registrants pass under RO/AR types). */
    WRITE,
    /** Decided by the reservation layer itself (PERSISTENT RESERVE OUT, RESERVE/RELEASE). */
    SPECIAL
}
