package io.hostwide.cli.ls;

import io.hostwide.cli.load.BlockDeviceTarget;
import io.hostwide.management.util.Json;
import io.hostwide.iscsi.initiator.InitiatorConfig;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code hostwide ls}: lsscsi for the devices {@code --device} sets up, and iscsiadm-style discovery for a portal —
 * its targets, their portals, and (logging in to each) their LUNs in the same columns. A refused or unreachable
 * portal, or a target that refuses the login, is one line on stderr and exit status 1; bad options and knobs are
 * usage errors (status 2). Secrets are never printed.
 */
@Command(name = "ls", mixinStandardHelpOptions = true,
        description = {"List SCSI devices like lsscsi: [H:C:T:L], type, vendor, product, revision, size, name.",
                "With --device: set the device(s) up, scan, list every LUN of their host(s).",
                "With an iscsi://HOST[:PORT] portal: SendTargets discovery, each target's portals, and its LUNs."},
        footer = {"", "Examples:",
                "  hostwide ls --device debug:add_host=2,num_tgts=2,max_luns=2",
                "  hostwide ls -v iscsi://10.0.0.5:3260,user=alice,secret_env=CHAP_SECRET"})
public final class LsCommand implements Callable<Integer> {

    @Parameters(arity = "0..1", paramLabel = "PORTAL", description = "Discover and list the targets of "
            + PortalListing.FORM + ", or iscsi:url=iscsi://HOST[:PORT],...")
    String portal;

    @Option(names = "--device", paramLabel = "KIND[:KEY=VALUE,...]",
            description = "Device to set up and list (repeatable): null, loop:..., debug:..., iscsi:url=...")
    List<String> devices = new ArrayList<>();

    @Option(names = {"-v", "--verbose"}, description = "Add queue_depth, can_queue, nr_hw_queues, host_tagset, "
            + "rotational, scheduler, block size, thin provisioning and the VPD B0h maximum transfer")
    boolean verbose;

    @Option(names = "--json", description = "Print JSON instead of text")
    boolean json;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        if (portal == null && devices.isEmpty()) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "give --device KIND[:KEY=VALUE,...] or a portal, " + PortalListing.FORM);
        }
        InitiatorConfig discovery = portal == null ? null : PortalListing.config(portal);   // bad knobs: before setup
        Map<String, Object> tree = new LinkedHashMap<>();
        StringBuilder text = new StringBuilder();
        if (!devices.isEmpty()) {
            List<LsDevice> rows = listDevices();
            tree.put("devices", rows);
            rows.forEach(d -> LsText.append(text, "", d));
        }
        int status = 0;
        if (discovery != null) {
            List<PortalListing.LsTarget> targets;
            try {
                targets = PortalListing.list(discovery, verbose);
            } catch (IOException e) {
                if (json) {   // a script reading stdout still gets one document, with the reason
                    tree.put("portal", discovery.url().toString());
                    tree.put("error", e.getMessage());
                    spec.commandLine().getOut().print(Json.pretty(tree) + "\n");
                    spec.commandLine().getOut().flush();
                }
                return fail(e.getMessage());
            }
            tree.put("portal", discovery.url().toString());
            tree.put("targets", targets);
            status = appendTargets(text, targets);
        }
        PrintWriter out = spec.commandLine().getOut();
        out.print(json ? Json.pretty(tree) + "\n" : text);
        out.flush();
        return status;
    }

    /** Opens each device (through the shared --device spec parsing), lists its hosts' LUNs, closes it. */
    private List<LsDevice> listDevices() {
        List<LsDevice> rows = new ArrayList<>();
        for (String d : devices) {
            try (BlockDeviceTarget target = BlockDeviceTarget.open(d)) {
                rows.addAll(DeviceListing.of(target.device(), verbose));
            }
        }
        return rows;
    }

    private int appendTargets(StringBuilder text, List<PortalListing.LsTarget> targets) {
        int status = 0;
        for (PortalListing.LsTarget t : targets) {
            text.append("target ").append(t.name()).append('\n');
            t.portals().forEach(p -> text.append("  portal ").append(p.targetAddress()).append('\n'));
            if (t.error() != null) {
                spec.commandLine().getErr().println(spec.qualifiedName() + ": " + t.error());
                status = 1;
            } else {
                t.devices().forEach(d -> LsText.append(text, "  ", d));
            }
        }
        return status;
    }

    private int fail(String message) {
        spec.commandLine().getErr().println(spec.qualifiedName() + ": " + message);
        return 1;
    }
}
