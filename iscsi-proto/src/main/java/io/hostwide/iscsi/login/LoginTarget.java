package io.hostwide.iscsi.login;

import java.util.function.Predicate;

/**
 * What login needs to know about one target.
 *
 * @param alias the TargetAlias to declare (RFC 7143 §13.6), or null
 * @param portalGroupTag the TargetPortalGroupTag declared in the first Login Response of a Normal session (§13.9)
 * @param chap CHAP for this target
 * @param acl which initiator names may log in (RFC 7143 §11.13.5: others get 0202, authorization failure)
 */
public record LoginTarget(String name, String alias, int portalGroupTag, ChapPolicy chap, Predicate<String> acl) {
    public LoginTarget {
        if (chap == null) {
            chap = ChapPolicy.NONE;
        }
        if (acl == null) {
            acl = initiator -> true;
        }
    }
}
