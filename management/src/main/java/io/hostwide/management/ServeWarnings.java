package io.hostwide.management;

import io.hostwide.management.config.ServeConfig;
import io.hostwide.management.config.Portal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * What {@code serve} says at startup about choices that weaken security, so that none is quiet: {@code --insecure},
 * targets without CHAP reachable beyond loopback, and a configuration file holding CHAP secrets that other local
 * users can read. Warnings, not refusals: exposure without CHAP is already refused unless {@code --insecure} is
 * given, and a readable file of shared CHAP secrets should not keep storage offline at a restart; saying it on every
 * start (and reload) is what makes it get fixed.
 */
public final class ServeWarnings {
    private ServeWarnings() {
    }

    /** The brief's rule: beyond loopback, every target needs CHAP unless the operator opts out explicitly. */
    public static void refuseOpenExposure(ServeConfig cfg, List<Portal> portals, boolean insecure) {
        if (insecure) {
            return;
        }
        List<String> exposed = exposed(portals);
        if (exposed.isEmpty()) {
            return;
        }
        List<String> open = withoutChap(cfg);
        if (!open.isEmpty()) {
            throw new IllegalArgumentException("refusing to listen on " + String.join(", ", exposed)
                    + " with targets that have no CHAP (" + String.join(", ", open)
                    + "): set \"auth\" for them in --config, or pass --insecure");
        }
    }

    /**
     * The same rule for the metrics page: it has no authentication and names every target, initiator and LUN, so
     * beyond loopback it needs the explicit opt-out too (or, better, a loopback address behind a proxy that
     * authenticates).
     */
    public static void refuseOpenMetrics(Portal metrics, boolean insecure) {
        if (metrics != null && !insecure && !metrics.isLoopback()) {
            throw new IllegalArgumentException("refusing to serve metrics on " + metrics + ": /metrics has no "
                    + "authentication and names every target and initiator; use a loopback address (scraped "
                    + "locally or through an authenticating proxy), or pass --insecure");
        }
    }

    /** Said at every start while metrics are served beyond loopback (only possible with --insecure). */
    public static List<String> ofMetrics(Portal metrics) {
        if (metrics == null || metrics.isLoopback()) {
            return List.of();
        }
        return List.of("metrics on " + metrics + " are readable by anyone who can connect (no authentication)");
    }

    public static List<String> of(ServeConfig cfg, List<Portal> portals, boolean insecure, Path configFile) {
        List<String> out = new ArrayList<>();
        List<String> exposed = exposed(portals);
        List<String> open = withoutChap(cfg);
        if (insecure) {
            out.add(exposed.isEmpty()
                    ? "--insecure given, but every portal is a loopback address: it changes nothing"
                    : "--insecure: the CHAP requirement beyond loopback is switched off");
        }
        if (!exposed.isEmpty() && !open.isEmpty()) {
            out.add("targets without CHAP (" + String.join(", ", open) + ") are reachable by anyone who can connect to "
                    + String.join(", ", exposed) + "; set \"auth\" for them in the configuration");
        }
        if (!exposed.isEmpty() && cfg.discoveryAuth() == null) {
            out.add("discovery (SendTargets) on " + String.join(", ", exposed)
                    + " lists the targets to anyone; set \"discovery_auth\" to require CHAP for it");
        }
        if (configFile != null && holdsSecrets(cfg)) {
            String mode = readableByOthers(configFile);
            if (mode != null) {
                out.add(configFile + " holds CHAP secrets and can be read by other users (mode " + mode
                        + "); chmod 600 " + configFile);
            }
        }
        return out;
    }

    /**
     * What serve says when portals are opened while it runs: the startup warnings that concern them (the CHAP
     * requirement switched off, targets without CHAP or discovery without CHAP reachable through them). None for
     * loopback portals.
     */
    public static List<String> ofPortals(ServeConfig cfg, List<Portal> opened, boolean insecure) {
        if (exposed(opened).isEmpty()) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        if (insecure) {
            out.add("--insecure: the CHAP requirement beyond loopback is switched off");
        }
        out.addAll(of(cfg, opened, false, null));
        return out;
    }

    /** The portals beyond loopback, as written. */
    static List<String> exposed(List<Portal> portals) {
        return portals.stream().filter(p -> !p.isLoopback()).map(Portal::toString).toList();
    }

    /** The names of the targets that take logins without CHAP. */
    static List<String> withoutChap(ServeConfig cfg) {
        return (cfg.targets() == null ? List.<ServeConfig.Target>of() : cfg.targets()).stream()
                .filter(t -> t.auth() == null && !everyAclHasChap(t)).map(ServeConfig.Target::name).toList();
    }

    /**
     * Every initiator the target admits proves CHAP of its own. An empty ACL list admits no one, but does not count:
     * the first ACL added to it would be open (the API refuses such a target beyond loopback until it has CHAP).
     */
    private static boolean everyAclHasChap(ServeConfig.Target t) {
        return t.acls() != null && !t.acls().isEmpty() && t.acls().stream().allMatch(a -> a.auth() != null);
    }

    private static boolean holdsSecrets(ServeConfig cfg) {
        if (cfg.discoveryAuth() != null) {
            return true;
        }
        for (ServeConfig.Target t : cfg.targets() == null ? List.<ServeConfig.Target>of() : cfg.targets()) {
            if (t.auth() != null) {
                return true;
            }
            for (ServeConfig.Acl a : t.acls() == null ? List.<ServeConfig.Acl>of() : t.acls()) {
                if (a.auth() != null) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The file's mode ("rw-r--r--") when group or others may read it; null when private or not POSIX. */
    private static String readableByOthers(Path file) {
        try {
            Set<PosixFilePermission> p = Files.getPosixFilePermissions(file);
            return p.contains(PosixFilePermission.GROUP_READ) || p.contains(PosixFilePermission.OTHERS_READ)
                    ? PosixFilePermissions.toString(p) : null;
        } catch (IOException | UnsupportedOperationException e) {
            return null;
        }
    }
}
