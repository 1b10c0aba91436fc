package io.hostwide.target.ordering;

import io.hostwide.scsi.spec.TaskAttribute;
import io.hostwide.target.CommandGate;
import io.hostwide.target.TargetCommand;
import io.hostwide.target.TargetCore;
import io.hostwide.target.core.CommandDescriptor;
import io.hostwide.target.model.Device;

/**
 * The {@link io.hostwide.target.GateSlot#TASK_ATTRIBUTE} gate: SIMPLE / ORDERED / HEAD OF QUEUE ordering per
 * logical unit (SAM-5 §8.6, digest §6.3) through the device's {@link TaskSetOrdering}. INQUIRY and REPORT LUNS run
 * as HEAD OF QUEUE whatever the transport says. ACA never gets here: the core rejects it first (NormACA = 0).
 */
public final class OrderingGate implements CommandGate {
    private final TargetCore core;

    public OrderingGate(TargetCore core) { this.core = core; }

    static TaskAttribute attribute(TargetCommand cmd) {
        CommandDescriptor d = cmd.descriptor();
        return d != null && d.has(CommandDescriptor.HEAD_OF_QUEUE) ? TaskAttribute.HEAD_OF_QUEUE : cmd.taskAttribute();
    }

    @Override
    public int enter(TargetCommand cmd) {
        Device dev = cmd.device();
        if (dev == null) {
            return PASS;                 // no logical unit, no task set
        }
        TaskSetOrdering o = dev.services().ordering();
        switch (attribute(cmd)) {
            case HEAD_OF_QUEUE -> {
                o.enterHead();
                return PASS;
            }
            case ORDERED -> {
                o.enterOrdered(cmd, core);
                return DEFER;
            }
            default -> {
                return o.enterSimple(cmd, core) ? PASS : DEFER;
            }
        }
    }

    @Override
    public void exit(TargetCommand cmd) {
        Device dev = cmd.device();
        if (dev == null) {
            return;
        }
        TaskSetOrdering o = dev.services().ordering();
        if (attribute(cmd) == TaskAttribute.ORDERED) {
            o.exitOrdered(core);
        } else {
            o.exitNonOrdered(core);
        }
    }
}
