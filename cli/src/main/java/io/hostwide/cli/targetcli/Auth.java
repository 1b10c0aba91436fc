package io.hostwide.cli.targetcli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code set auth userid= password= [mutual_userid= mutual_password=]} on a TPG (the target's CHAP) or an ACL (that
 * initiator's own). The API sets a user with its secret, so a key given alone is merged with the credentials in
 * force and applied once both halves are known; {@code userid= password=} (empty) clears them.
 */
final class Auth {
    /** targetcli's keys and the API's. */
    private static final Map<String, String> KEYS = Map.of("userid", "user", "password", "secret",
            "mutual_userid", "mutual_user", "mutual_password", "mutual_secret");

    private Auth() {
    }

    static void set(Shell sh, Node at, Map<String, String> kv) {
        Commands.require(sh, at);
        for (String k : kv.keySet()) {
            if (!KEYS.containsKey(k)) {
                throw new Shell.Failure("Unknown auth parameter " + k + " (userid, password, mutual_userid, "
                        + "mutual_password)");
            }
        }
        String key = at.path();
        Map<String, String> pending = sh.pendingAuth.computeIfAbsent(key, x -> new LinkedHashMap<>());
        kv.forEach((k, v) -> pending.put(KEYS.get(k), v));
        Map<String, String> c = current(sh, at);
        c.putAll(pending);
        boolean initiator = at.kind() == Node.Kind.ACL;
        ObjectNode p = Api.params().put("target", at.target());
        if (initiator) {
            p.put("initiator", at.initiator());
        }
        String user = c.getOrDefault("user", "");
        String secret = c.getOrDefault("secret", "");
        String mUser = c.getOrDefault("mutual_user", "");
        String mSecret = c.getOrDefault("mutual_secret", "");
        if (user.isEmpty() && secret.isEmpty() && mUser.isEmpty() && mSecret.isEmpty()) {
            sh.api.call("chap_clear", p);
            sh.pendingAuth.remove(key);
        } else if (!user.isEmpty() && !secret.isEmpty() && mUser.isEmpty() == mSecret.isEmpty()) {
            p.put("user", user).put("secret", secret);
            if (!mUser.isEmpty()) {
                p.put("mutual_user", mUser).put("mutual_secret", mSecret);
            }
            sh.pendingAuth.remove(key);
            sh.api.call("chap_set", p);
            if (!initiator) {
                sh.authRequired.remove(at.target());
            }
        } // else: held until the other half comes (Shell.finish fails if it never does)
        kv.forEach((k, v) -> sh.out.println("Parameter " + k + " is now '"
                + (k.endsWith("password") && !v.isEmpty() ? "********" : v) + "'."));
    }

    /**
     * {@code /iscsi set discovery_auth enable=1 userid=U password=P [mutual_userid= mutual_password=]}: CHAP for
     * SendTargets discovery sessions; {@code enable=0} clears it.
     */
    static void discovery(Shell sh, Map<String, String> kv) {
        Map<String, String> c = new LinkedHashMap<>();
        boolean enable = true;
        for (Map.Entry<String, String> e : kv.entrySet()) {
            if (e.getKey().equals("enable")) {
                enable = Shell.bool("enable", e.getValue());
            } else if (KEYS.containsKey(e.getKey())) {
                c.put(KEYS.get(e.getKey()), e.getValue());
            } else {
                throw new Shell.Failure("Unknown discovery_auth parameter " + e.getKey() + " (enable, userid, "
                        + "password, mutual_userid, mutual_password)");
            }
        }
        if (!enable) {
            sh.api.call("chap_clear", Api.params());
        } else {
            JsonNode now = sh.api.call("config_get", Api.params().put("include_secrets", true)).path("discovery_auth");
            if (now.isObject()) {
                now.properties().forEach(e -> {
                    if (!e.getValue().isNull()) {
                        c.putIfAbsent(e.getKey(), e.getValue().asText());
                    }
                });
            }
            if (c.getOrDefault("user", "").isEmpty() || c.getOrDefault("secret", "").isEmpty()) {
                throw new Shell.Failure("discovery_auth enable=1 needs userid= and password= (hostwide would "
                        + "otherwise answer discovery without CHAP)");
            }
            ObjectNode p = Api.params().put("user", c.get("user")).put("secret", c.get("secret"));
            if (!c.getOrDefault("mutual_user", "").isEmpty() || !c.getOrDefault("mutual_secret", "").isEmpty()) {
                p.put("mutual_user", c.getOrDefault("mutual_user", "")).put("mutual_secret",
                        c.getOrDefault("mutual_secret", ""));
            }
            sh.api.call("chap_set", p);
        }
        kv.forEach((k, v) -> sh.out.println("Parameter " + k + " is now '"
                + (k.endsWith("password") && !v.isEmpty() ? "********" : v) + "'."));
    }

    /** The credentials in force at the node, from the configuration with its secrets. */
    private static Map<String, String> current(Shell sh, Node at) {
        JsonNode cfg = sh.api.call("config_get", Api.params().put("include_secrets", true));
        Map<String, String> out = new LinkedHashMap<>();
        for (JsonNode t : cfg.path("targets")) {
            if (!t.path("name").asText().equals(at.target())) {
                continue;
            }
            JsonNode auth = t.path("auth");
            if (at.kind() == Node.Kind.ACL) {
                auth = null;
                for (JsonNode a : t.path("acls")) {
                    if (a.path("initiator").asText().equalsIgnoreCase(at.initiator())) {
                        auth = a.path("auth");
                    }
                }
            }
            if (auth != null) {
                auth.properties().forEach(e -> {
                    if (!e.getValue().isNull()) {
                        out.put(e.getKey(), e.getValue().asText());
                    }
                });
            }
        }
        return out;
    }
}
