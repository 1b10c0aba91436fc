package io.hostwide.cli.ls;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.hostwide.iscsi.discovery.Portal;
import io.hostwide.iscsi.initiator.InitiatorConfig;
import io.hostwide.iscsi.initiator.IscsiHba;
import io.hostwide.iscsi.initiator.LoginException;
import io.hostwide.iscsi.initiator.SendTargetsDiscovery;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code hostwide ls iscsi://HOST[:PORT]}: a SendTargets=All discovery at the portal (as {@code iscsiadm -m discovery
 * -t st}), then a login to each target to list its LUNs. The portal argument takes the {@code iscsi:} device kind's
 * knobs after a comma ({@code iscsi://h,user=alice,secret_env=CHAP}), or the whole device-spec form
 * ({@code iscsi:url=iscsi://h,user=...}); the same credentials serve the discovery and every target's login.
 */
final class PortalListing {
    static final String FORM = "iscsi://HOST[:PORT][,KNOB=VALUE...] (knobs as the iscsi: device kind: user, secret, "
            + "secret_env, initiator, login_timeout...)";

    /** One discovered target: its portals, and its LUNs or the reason they could not be listed. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record LsTarget(String name, List<Portal> portals, List<LsDevice> devices, String error) {
    }

    private PortalListing() {
    }

    /** The discovery config for the argument; bad forms and knobs are IllegalArgumentExceptions naming them. */
    static InitiatorConfig config(String portal) {
        String params;
        if (portal.startsWith("iscsi://")) {
            params = "url=" + portal;
        } else if (portal.startsWith("iscsi:")) {
            params = portal.substring("iscsi:".length());
        } else {
            throw new IllegalArgumentException("PORTAL: expected " + FORM + ", got '" + portal.split(",", 2)[0] + "'");
        }
        return SendTargetsDiscovery.config(params);
    }

    /** Discovers and logs in to each target; a refused discovery is the IOException, a refused target login its error. */
    static List<LsTarget> list(InitiatorConfig discovery, boolean verbose) throws IOException {
        List<LsTarget> out = new ArrayList<>();
        for (SendTargetsDiscovery.Target t : SendTargetsDiscovery.sendTargetsAll(discovery)) {
            out.add(login(discovery, t, verbose));
        }
        return out;
    }

    /** Tries the target's portals in the order reported; a login refusal ends the attempt (it will not change). */
    private static LsTarget login(InitiatorConfig discovery, SendTargetsDiscovery.Target t, boolean verbose) {
        List<Portal> tries = new ArrayList<>();
        for (Portal p : t.portals()) {
            tries.add(reachable(discovery, p));
        }
        if (tries.isEmpty()) {   // RFC 7143 Appendix C: no TargetAddress means the portal we asked
            tries.add(new Portal(discovery.url().host(), discovery.url().port(), 1));
        }
        String error = null;
        for (Portal p : tries) {
            try (IscsiHba hba = IscsiHba.connect(SendTargetsDiscovery.forTarget(discovery, t.name(), p))) {
                return new LsTarget(t.name(), t.portals(), DeviceListing.ofHosts(List.of(hba.host()), verbose), null);
            } catch (LoginException e) {
                return new LsTarget(t.name(), t.portals(), null, e.getMessage());
            } catch (IOException e) {
                error = e.getMessage();
            }
        }
        return new LsTarget(t.name(), t.portals(), null, error);
    }

    /** A target listening on the wildcard address reports it; log in where the discovery went instead. */
    private static Portal reachable(InitiatorConfig discovery, Portal p) {
        boolean wildcard = p.host().equals("0.0.0.0") || p.host().equals("::") || p.host().equals("0:0:0:0:0:0:0:0");
        return wildcard ? new Portal(discovery.url().host(), p.port(), p.portalGroupTag()) : p;
    }
}
