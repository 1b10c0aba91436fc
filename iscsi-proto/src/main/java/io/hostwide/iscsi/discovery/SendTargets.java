package io.hostwide.iscsi.discovery;

import io.hostwide.iscsi.login.KeyValue;
import io.hostwide.iscsi.spec.TextKey;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Answers the SendTargets text key, RFC 7143 §13.3 and Appendix C: for each reported target one TargetName followed by
 * a TargetAddress per portal. Targets the initiator is not allowed to log in to are not reported.
 * <ul>
 *   <li>{@code All}: every target, in a Discovery session only (in a Normal session: Reject);</li>
 *   <li>a target name: that target, if it exists and the initiator may see it (else an empty reply);</li>
 *   <li>empty: in a Normal session the session's own target; in a Discovery session there is none, so Reject.</li>
 * </ul>
 */
public final class SendTargets {
    private SendTargets() {}

    /**
     * @param value the SendTargets value received
     * @param sessionTarget the Normal session's target name, or null in a Discovery session
     */
    public static List<KeyValue> answer(String value, String sessionTarget, String initiatorName,
            Collection<DiscoveryTarget> targets) {
        boolean discovery = sessionTarget == null;
        List<KeyValue> out = new ArrayList<>();
        if (value.equals(TextKey.ALL)) {
            if (!discovery) {
                out.add(new KeyValue(TextKey.SEND_TARGETS, TextKey.REJECT));
                return out;
            }
            for (DiscoveryTarget t : targets) {
                report(t, initiatorName, out);
            }
            return out;
        }
        String wanted = value.isEmpty() ? sessionTarget : value;
        if (wanted == null) {
            out.add(new KeyValue(TextKey.SEND_TARGETS, TextKey.REJECT));
            return out;
        }
        for (DiscoveryTarget t : targets) {
            if (t.name().equals(wanted)) {
                report(t, initiatorName, out);
            }
        }
        return out;
    }

    private static void report(DiscoveryTarget t, String initiatorName, List<KeyValue> out) {
        if (!t.acl().test(initiatorName)) {
            return;
        }
        out.add(new KeyValue(TextKey.TARGET_NAME, t.name()));
        for (Portal p : t.portals()) {
            out.add(new KeyValue(TextKey.TARGET_ADDRESS, p.targetAddress()));
        }
    }
}
