package io.hostwide.iscsi.login;

import io.hostwide.iscsi.spec.LoginStatus;
import io.hostwide.iscsi.spec.TextKey;
import java.util.List;

/**
 * The declarative names of a login (RFC 7143 §13.4, §13.5, §13.7, §13.21): who logs in, to what, for which kind of
 * session; checked on the first Login Request, where they must appear (§13.5: InitiatorName in the first request;
 * §13.4: TargetName in the first request of a Normal session).
 */
final class LoginNames {
    private String initiatorName;
    private String initiatorAlias;
    private boolean discovery;
    private LoginTarget target;
    private String failure;

    static boolean isName(String key) {
        return key.equals(TextKey.INITIATOR_NAME) || key.equals(TextKey.TARGET_NAME)
                || key.equals(TextKey.SESSION_TYPE) || key.equals(TextKey.INITIATOR_ALIAS);
    }

    LoginStatus first(List<KeyValue> pairs, LoginEnvironment env, boolean joining) {
        String targetName = null;
        String sessionType = TextKey.NORMAL;
        for (KeyValue kv : pairs) {
            switch (kv.key()) {
                case TextKey.INITIATOR_NAME -> initiatorName = kv.value();
                case TextKey.TARGET_NAME -> targetName = kv.value();
                case TextKey.SESSION_TYPE -> sessionType = kv.value();
                case TextKey.INITIATOR_ALIAS -> initiatorAlias = kv.value();
                default -> { }
            }
        }
        if (initiatorName == null || initiatorName.isEmpty()) {
            return fail(LoginStatus.MISSING_PARAMETER, "InitiatorName missing from the first login request");
        }
        if (initiatorName.length() > TextKey.MAX_ISCSI_NAME_LENGTH
                || (targetName != null && targetName.length() > TextKey.MAX_ISCSI_NAME_LENGTH)) {
            return fail(LoginStatus.INITIATOR_ERROR, "iSCSI name longer than 223 bytes");
        }
        if (sessionType.equals(TextKey.DISCOVERY)) {
            discovery = true;
            if (joining) { // a discovery session has one connection (MaxConnections is irrelevant to it)
                return fail(LoginStatus.CANNOT_INCLUDE_IN_SESSION, "connection added to a discovery session");
            }
            return null;
        }
        if (!sessionType.equals(TextKey.NORMAL)) {
            return fail(LoginStatus.SESSION_TYPE_NOT_SUPPORTED, "unknown SessionType");
        }
        if (targetName == null || targetName.isEmpty()) {
            return fail(LoginStatus.MISSING_PARAMETER, "TargetName missing from a Normal session login");
        }
        target = env.target(targetName);
        if (target == null) {
            return fail(LoginStatus.NOT_FOUND, "no such target");
        }
        if (!target.acl().test(initiatorName)) {
            return fail(LoginStatus.AUTHORIZATION_FAILURE, "initiator not in the target's ACL");
        }
        return null;
    }

    /** Names may not first appear after the first request (they are "IO", initialize only). */
    LoginStatus later(List<KeyValue> pairs) {
        for (KeyValue kv : pairs) {
            boolean known = switch (kv.key()) {
                case TextKey.INITIATOR_NAME -> kv.value().equals(initiatorName);
                case TextKey.TARGET_NAME -> target != null && kv.value().equals(target.name());
                case TextKey.SESSION_TYPE -> kv.value().equals(discovery ? TextKey.DISCOVERY : TextKey.NORMAL);
                default -> true;
            };
            if (!known) {
                return fail(LoginStatus.INITIATOR_ERROR, kv.key() + " changed after the first login request");
            }
        }
        return null;
    }

    /** RFC 7143 §13.9: the first Login Response of a Normal session declares the TargetPortalGroupTag. */
    void declareFirst(List<KeyValue> answers) {
        if (target == null) {
            return;
        }
        if (target.alias() != null) {
            answers.add(new KeyValue(TextKey.TARGET_ALIAS, target.alias()));
        }
        answers.add(new KeyValue(TextKey.TARGET_PORTAL_GROUP_TAG, Integer.toString(target.portalGroupTag())));
    }

    private LoginStatus fail(LoginStatus s, String why) {
        failure = why;
        return s;
    }

    String failure() {
        return failure;
    }

    String initiatorName() {
        return initiatorName;
    }

    String initiatorAlias() {
        return initiatorAlias;
    }

    boolean discovery() {
        return discovery;
    }

    LoginTarget target() {
        return target;
    }
}
