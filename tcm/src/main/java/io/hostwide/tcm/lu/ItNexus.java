package io.hostwide.tcm.lu;

import java.util.List;

/**
 * An I_T nexus as the logical units see it (SAM-5 §4.6.2): an initiator port and a target port, named as the
 * persistent reservation state keeps them, with the logical units this nexus reaches. The core's session
 * implements it; per-LU state (reservations, unit attentions, ALUA notices) and the handlers know a nexus only
 * through this view, so they never depend on the core that holds the session.
 */
public interface ItNexus {

    /** A number unique among the nexuses of this process (EXTENDED COPY keys its list identifiers with it). */
    long id();

    /** The initiator's SCSI name (iSCSI: InitiatorName). */
    String initiatorName();

    /** The initiator port name (iSCSI: "iqn...,i,0x" + ISID, RFC 7143 §4.2.7.1). */
    String initiatorPortName();

    /** The SCSI target port name of the port this nexus came in through (SPC-4 §7.8.6.11). */
    String targetPortName();

    /** The relative target port identifier of that port (SPC-4 §3.1.120). */
    int relativeTargetPortId();

    /** Whether the nexus is gone (I_T nexus loss); an SPC-2 reservation it held no longer counts. */
    boolean closed();

    /** @return the LUN as this nexus sees it, or null when not mapped */
    SessionLun lookup(int lunNumber);

    /** The logical units this nexus sees, in LUN order. */
    List<SessionLun> sessionLuns();

    /** The mapped LUN numbers in ascending order. */
    int[] mappedLunNumbers();
}
