package io.hostwide.tcm.core;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Which (initiator port, target port, logical unit) triples have already been told about the power on
 * (SAM-5 §6.3.1: POWER ON, RESET, OR BUS DEVICE RESET OCCURRED is established once, at power on, for every
 * initiator port; it is reported to the first nexus of each initiator port and then is gone).
 *
 * <p>Without this, every new nexus of the same initiator port, such as an iSCSI session reinstated with the same
 * ISID after a dropped connection, got the power-on condition again: an initiator that reconnects while polling
 * TEST UNIT READY "until no unit attention" (libiscsi Sanitize.Reset) never got out of its loop.
 *
 * <p>Bounded: the least recently seen triples are forgotten beyond {@link #CAPACITY} (such an initiator port then
 * sees the power-on condition once more, which is harmless). Touched only at login and LUN map changes, never on
 * the command path, so one monitor is enough.
 */
final class PowerOnLedger {
    static final int CAPACITY = 4096;

    private final Map<String, Boolean> reported = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) { return size() > CAPACITY; }
    };

    /** @return true the first time this initiator port sees this logical unit through this target port. */
    synchronized boolean firstSight(String initiatorPortName, String targetPortName, String device) {
        return reported.put(initiatorPortName + '\u0000' + targetPortName + '\u0000' + device, Boolean.TRUE) == null;
    }

    /** A power-on event (TARGET COLD RESET) for the ports whose names start with {@code portPrefix}: tell again. */
    synchronized void forgetPorts(String portPrefix) {
        reported.keySet().removeIf(k -> k.startsWith(portPrefix, k.indexOf('\u0000') + 1));
    }
}
