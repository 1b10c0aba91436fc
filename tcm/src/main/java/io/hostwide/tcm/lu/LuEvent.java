package io.hostwide.tcm.lu;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/**
 * A message one gateway of an LU sends every other gateway of it through the reservation store's notify, the one
 * channel all of them already watch and whose notify returns only once each acknowledged (or was fenced) — so
 * when the sender's command completes, every live gateway has acted on it (issue 16). Text, one line per field:
 * <pre>
 * hostwide-lu-event 1
 * origin &lt;gateway id, URL-encoded&gt;
 * event &lt;RESET|RELEASE&gt; &lt;code, hex&gt;
 * </pre>
 *
 * @param origin the sending gateway's id: a gateway ignores its own events
 * @param kind   what happened
 * @param code   {@link Kind#RESET}: the unit attention (29h/xxh) the reset owes every I_T nexus of the LU;
 *               {@link Kind#RELEASE}: the asking gateway's target port group
 */
public record LuEvent(String origin, Kind kind, int code) {

    static final String MAGIC = "hostwide-lu-event 1";

    /** What an event asks of the other gateways. */
    public enum Kind {
        /**
         * A LOGICAL UNIT RESET, a target reset (SAM-5 §6.3) taken on the sender: every gateway aborts its commands
         * on the LU and raises the reset's unit attention on each of its I_T nexuses of the LU.
         */
        RESET,
        /**
         * The sender must write and does not own the storage: the owner hands it over (releases the RBD exclusive
         * lock once its writes finished) before acknowledging, so the sender takes it without fencing anyone.
         */
        RELEASE
    }

    /** Receives the events addressed to a part other than the reservations (the ALUA policy). */
    public interface Listener {
        /** Runs on the store's delivery thread; returning acknowledges the event. */
        void event(LuEvent e);
    }

    public byte[] encode() {
        return (MAGIC + "\norigin " + URLEncoder.encode(origin, StandardCharsets.UTF_8) + "\nevent " + kind.name()
                + " " + Integer.toHexString(code) + "\n").getBytes(StandardCharsets.UTF_8);
    }

    /** Whether {@code payload} is an event (rather than a reservation change's notify). */
    static boolean is(byte[] payload) {
        byte[] m = MAGIC.getBytes(StandardCharsets.US_ASCII);
        if (payload == null || payload.length <= m.length || payload[m.length] != '\n') {
            return false;
        }
        for (int i = 0; i < m.length; i++) {
            if (payload[i] != m[i]) {
                return false;
            }
        }
        return true;
    }

    /** The event in {@code payload}; throws with the reason when it is not one this version writes. */
    static LuEvent decode(byte[] payload) throws SharedPrDocument.MalformedException {
        if (!is(payload) || payload.length > 4096) {
            throw new SharedPrDocument.MalformedException("not a '" + MAGIC + "' event of at most 4096 bytes");
        }
        String[] lines = new String(payload, StandardCharsets.UTF_8).split("\n");
        if (lines.length != 3 || !lines[1].startsWith("origin ") || !lines[2].startsWith("event ")) {
            throw new SharedPrDocument.MalformedException("an event has an origin line and an event line");
        }
        String[] f = lines[2].split(" ");
        try {
            String origin = URLDecoder.decode(lines[1].substring(7), StandardCharsets.UTF_8);
            if (f.length != 3 || origin.isEmpty()) {
                throw new IllegalArgumentException("event line '" + lines[2] + "'");
            }
            return new LuEvent(origin, Kind.valueOf(f[1]), Integer.parseUnsignedInt(f[2], 16));
        } catch (IllegalArgumentException e) { // also NumberFormatException, an unknown kind, a bad %-escape
            throw new SharedPrDocument.MalformedException("unreadable event: " + e.getMessage());
        }
    }
}
