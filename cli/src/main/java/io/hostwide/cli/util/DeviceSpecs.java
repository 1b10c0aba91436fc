package io.hostwide.cli.util;

import java.util.regex.Pattern;

/** Device specs as the CLI prints them: the value of any knob whose name contains "secret" is redacted. */
public final class DeviceSpecs {
    // A knob is kind:k=v or ,k=v; values run to the next comma. secret_env names a variable, not a secret.
    private static final Pattern SECRET = Pattern.compile("([:,]\\s*[A-Za-z_]*secret(?!_env)[A-Za-z_]*\\s*=)[^,]*");

    private DeviceSpecs() {
    }

    /** {@code iscsi:url=...,user=u,secret=s} → {@code iscsi:url=...,user=u,secret=<redacted>}. */
    public static String redact(String spec) {
        if (spec == null) {
            return null;
        }
        return SECRET.matcher(spec).replaceAll("$1<redacted>");
    }
}
