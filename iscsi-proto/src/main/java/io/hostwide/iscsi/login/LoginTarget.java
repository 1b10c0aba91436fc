package io.hostwide.iscsi.login;

import java.util.Map;
import java.util.function.Predicate;

/**
 * What login needs to know about one target.
 *
 * @param alias the TargetAlias to declare (RFC 7143 §13.6), or null
 * @param portalGroupTag the TargetPortalGroupTag declared in the first Login Response of a Normal session (§13.9)
 * @param chap CHAP for this target: what an initiator without CHAP of its own must prove
 * @param acl which initiator names may log in (RFC 7143 §11.13.5: others get 0202, authorization failure)
 * @param initiatorChap CHAP of particular initiators (LIO's per-node-ACL auth), in place of {@code chap} for them
 */
public record LoginTarget(String name, String alias, int portalGroupTag, ChapPolicy chap, Predicate<String> acl,
                          Map<String, ChapPolicy> initiatorChap) {
    public LoginTarget {
        if (chap == null) {
            chap = ChapPolicy.NONE;
        }
        if (acl == null) {
            acl = initiator -> true;
        }
        initiatorChap = initiatorChap == null ? Map.of() : Map.copyOf(initiatorChap);
    }

    /** A target whose initiators all prove the same CHAP (or none). */
    public LoginTarget(String name, String alias, int portalGroupTag, ChapPolicy chap, Predicate<String> acl) {
        this(name, alias, portalGroupTag, chap, acl, Map.of());
    }

    /** The CHAP {@code initiator} must prove: its own when it has one, else the target's. */
    public ChapPolicy chapFor(String initiator) {
        ChapPolicy own = initiator == null ? null : initiatorChap.get(initiator);
        return own != null ? own : chap;
    }
}
