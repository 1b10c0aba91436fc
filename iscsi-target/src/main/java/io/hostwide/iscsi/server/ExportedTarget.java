package io.hostwide.iscsi.server;

import io.hostwide.iscsi.login.ChapPolicy;
import io.hostwide.iscsi.login.LoginTarget;
import io.hostwide.tcm.port.TargetPort;

import java.util.Map;

/**
 * A target port of the core exported over iSCSI: the iSCSI TargetName is the core target's name, the
 * TargetPortalGroupTag the port's tag (RFC 7143 §13.9), ACLs the port's (initiator names it admits).
 *
 * @param chap CHAP for logins to this target ({@link ChapPolicy#NONE} for none)
 * @param initiatorChap CHAP of particular initiators (LIO's node ACL auth), in place of {@code chap} for them
 * @param alias the TargetAlias declared at login, or null
 */
public record ExportedTarget(TargetPort port, ChapPolicy chap, Map<String, ChapPolicy> initiatorChap, String alias) {
    public ExportedTarget {
        if (port == null) {
            throw new IllegalArgumentException("port is required");
        }
        if (chap == null) {
            chap = ChapPolicy.NONE;
        }
        initiatorChap = initiatorChap == null ? Map.of() : Map.copyOf(initiatorChap);
    }

    public ExportedTarget(TargetPort port, ChapPolicy chap, String alias) {
        this(port, chap, Map.of(), alias);
    }

    public String name() {
        return port.target().name();
    }

    LoginTarget loginTarget() {
        return new LoginTarget(name(), alias, port.tag(), chap, port::admits, initiatorChap);
    }
}
