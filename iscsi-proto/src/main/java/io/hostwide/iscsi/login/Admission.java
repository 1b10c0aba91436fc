package io.hostwide.iscsi.login;

import io.hostwide.iscsi.spec.LoginStatus;

/** The registry's answer to a {@link SessionRequest}: the TSIH and command window, or a login failure status. */
public record Admission(LoginStatus status, int tsih, int expCmdSn, int maxCmdSn) {
    public static Admission refused(LoginStatus status) {
        return new Admission(status, 0, 0, 0);
    }

    public boolean admitted() {
        return status == LoginStatus.SUCCESS;
    }
}
