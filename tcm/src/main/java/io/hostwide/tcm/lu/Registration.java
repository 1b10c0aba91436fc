package io.hostwide.tcm.lu;

/**
 * One registered I_T nexus (SPC-4 §5.13.7): the initiator port (iSCSI: "name,i,0x" + ISID) and the target port,
 * or every target port of the LU when registered with ALL_TG_PT, and its reservation key. Keyed by names, not by
 * session objects, so that it survives I_T nexus loss and, with APTPL, a restart (SPC-4 §5.13.5).
 *
 * @param targetPortName       SCSI target port name, or null with {@code allTargetPorts}
 * @param relativeTargetPortId of the port the registration arrived on (READ FULL STATUS)
 */
public record Registration(String initiatorPortName, String targetPortName, int relativeTargetPortId, long key,
                           boolean allTargetPorts) {

    /** Whether the I_T nexus of {@code s} is this registration's. */
    public boolean matches(ItNexus s) {
        return initiatorPortName.equals(s.initiatorPortName())
                && (allTargetPorts || targetPortName.equals(s.targetPortName()));
    }

    public Registration withKey(long k) {
        return new Registration(initiatorPortName, targetPortName, relativeTargetPortId, k, allTargetPorts);
    }

    public static Registration of(ItNexus s, long key, boolean allTargetPorts) {
        return new Registration(s.initiatorPortName(), allTargetPorts ? null : s.targetPortName(),
                s.relativeTargetPortId(), key, allTargetPorts);
    }
}
