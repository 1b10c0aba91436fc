package io.hostwide.iscsi.discovery;

import java.util.List;
import java.util.function.Predicate;

/** A target as SendTargets reports it: its name, every portal it listens on, and who may see it. */
public record DiscoveryTarget(String name, List<Portal> portals, Predicate<String> acl) {
    public DiscoveryTarget {
        portals = List.copyOf(portals);
        if (acl == null) {
            acl = initiator -> true;
        }
    }
}
