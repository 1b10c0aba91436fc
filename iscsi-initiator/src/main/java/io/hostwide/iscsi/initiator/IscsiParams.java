package io.hostwide.iscsi.initiator;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code iscsi:} device kind's knobs, {@code url=iscsi://HOST[:PORT]/IQN/LUN[,k=v...]}. Every error names the
 * knob; no message ever contains a secret's value.
 *
 * <ul>
 *   <li>{@code user}, {@code secret} (or {@code secret_env=VAR}): one-way CHAP;</li>
 *   <li>{@code target_user}, {@code target_secret} (or {@code target_secret_env}): mutual CHAP;</li>
 *   <li>{@code initiator} (IQN), {@code connections} (MaxConnections offered, default 2),
 *       {@code header_digest}, {@code data_digest} (0/1), {@code immediate_data}, {@code initial_r2t} (0/1),
 *       {@code max_recv_data_segment_length}, {@code first_burst_length}, {@code max_burst_length} (bytes),
 *       {@code cmds_max} (can_queue; 0: max(128, the window at login)), {@code cmd_per_lun} (0: can_queue),
 *       {@code io_timeout}, {@code tmf_timeout}, {@code login_timeout},
 *       {@code recovery_timeout}, {@code noop_out_interval} (0: no pings), {@code noop_out_timeout} (ms).</li>
 * </ul>
 */
final class IscsiParams {
    static final List<String> KNOBS = List.of("url", "user", "secret", "secret_env", "target_user", "target_secret",
            "target_secret_env", "initiator", "connections", "header_digest", "data_digest", "immediate_data",
            "initial_r2t", "max_recv_data_segment_length", "first_burst_length", "max_burst_length", "cmd_per_lun",
            "cmds_max",            "io_timeout", "tmf_timeout", "login_timeout", "recovery_timeout", "noop_out_interval", "noop_out_timeout");

    private IscsiParams() {}

    static InitiatorConfig parse(String params) {
        return parse(params, false);
    }

    /** The same knobs with {@code url=iscsi://HOST[:PORT]}: a portal for a discovery session. */
    static InitiatorConfig parsePortal(String params) {
        return parse(params, true);
    }

    private static InitiatorConfig parse(String params, boolean portal) {
        Map<String, String> v = split(params);
        String form = portal ? "iscsi://HOST[:PORT]" : "iscsi://HOST[:PORT]/IQN/LUN";
        if (!v.containsKey("url")) {
            throw new IllegalArgumentException("iscsi: url=" + form + " is required");
        }
        IscsiUrl url;
        try {
            url = portal ? IscsiUrl.parsePortal(v.get("url")) : IscsiUrl.parse(v.get("url"));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("iscsi: " + e.getMessage(), e);
        }
        InitiatorConfig c = new InitiatorConfig(url);
        ChapCredentials chap = credentials(v, "user", "secret");
        ChapCredentials mutual = credentials(v, "target_user", "target_secret");
        c.chap(chap).mutualChap(mutual);
        if (v.containsKey("initiator")) {
            c.initiatorName(v.get("initiator"));
        }
        c.connections(integer(v, "connections", c.connections));
        c.headerDigest(bool(v, "header_digest", c.headerDigest)).dataDigest(bool(v, "data_digest", c.dataDigest));
        c.immediateData(bool(v, "immediate_data", c.immediateData)).initialR2t(bool(v, "initial_r2t", c.initialR2t));
        c.maxRecvDataSegmentLength(integer(v, "max_recv_data_segment_length", c.maxRecvDataSegmentLength));
        c.firstBurstLength(integer(v, "first_burst_length", c.firstBurstLength));
        c.maxBurstLength(integer(v, "max_burst_length", c.maxBurstLength));
        c.cmdPerLun(integer(v, "cmd_per_lun", c.cmdPerLun));
        c.cmdsMax(integer(v, "cmds_max", c.cmdsMax));
        c.ioTimeoutMillis(integer(v, "io_timeout", (int) c.ioTimeoutMillis));
        c.tmfTimeoutMillis(integer(v, "tmf_timeout", (int) c.tmfTimeoutMillis));
        c.loginTimeoutMillis(integer(v, "login_timeout", (int) c.loginTimeoutMillis));
        c.recoveryTimeoutMillis(integer(v, "recovery_timeout", (int) c.recoveryTimeoutMillis));
        c.noopOutIntervalMillis(integer(v, "noop_out_interval", (int) c.noopOutIntervalMillis));
        c.noopOutTimeoutMillis(integer(v, "noop_out_timeout", (int) c.noopOutTimeoutMillis));
        try {
            return c.validate();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("iscsi: " + e.getMessage(), e);
        }
    }

    private static Map<String, String> split(String params) {
        Map<String, String> out = new LinkedHashMap<>();
        if (params == null || params.isBlank()) {
            return out;
        }
        for (String part : params.split(",")) {
            String p = part.strip();
            if (p.isEmpty()) {
                continue;
            }
            int eq = p.indexOf('=');
            String k = (eq < 0 ? p : p.substring(0, eq)).strip().toLowerCase(Locale.ROOT);
            String val = eq < 0 ? "1" : p.substring(eq + 1).strip();
            if (!KNOBS.contains(k)) {
                throw new IllegalArgumentException("iscsi: unknown knob '" + k + "' (known: " + String.join(", ", KNOBS)
                        + ")");
            }
            if (out.put(k, val) != null) {
                throw new IllegalArgumentException("iscsi: knob '" + k + "' given twice");
            }
        }
        return out;
    }

    private static ChapCredentials credentials(Map<String, String> v, String userKey, String secretKey) {
        String user = v.get(userKey);
        String secret = v.get(secretKey);
        String env = v.get(secretKey + "_env");
        if (secret != null && env != null) {
            throw new IllegalArgumentException("iscsi: give " + secretKey + " or " + secretKey + "_env, not both");
        }
        if (env != null) {
            secret = System.getenv(env);
            if (secret == null || secret.isEmpty()) {
                throw new IllegalArgumentException("iscsi: " + secretKey + "_env: environment variable " + env
                        + " is not set");
            }
        }
        if (user == null && secret == null) {
            return null;
        }
        if (user == null || user.isEmpty() || secret == null || secret.isEmpty()) {
            throw new IllegalArgumentException("iscsi: " + userKey + " and " + secretKey + " go together");
        }
        return ChapCredentials.of(user, secret);
    }

    private static int integer(Map<String, String> v, String k, int dflt) {
        String s = v.get(k);
        if (s == null) {
            return dflt;
        }
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("iscsi: " + k + " must be an integer, got '" + s + "'");
        }
    }

    private static boolean bool(Map<String, String> v, String k, boolean dflt) {
        String s = v.get(k);
        if (s == null) {
            return dflt;
        }
        return switch (s.toLowerCase(Locale.ROOT)) {
            case "1", "yes", "true", "on" -> true;
            case "0", "no", "false", "off" -> false;
            default -> throw new IllegalArgumentException("iscsi: " + k + " must be 0 or 1, got '" + s + "'");
        };
    }
}
