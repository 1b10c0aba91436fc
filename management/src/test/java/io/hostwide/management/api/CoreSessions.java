package io.hostwide.management.api;

import io.hostwide.tcm.TargetCore;
import io.hostwide.tcm.core.Session;
import io.hostwide.tcm.spi.Fabric;
import io.hostwide.tcm.spi.TargetCommand;

/** I_T nexuses opened straight on the core (no iSCSI), to see the unit attentions a change queues for them. */
final class CoreSessions {
    private final TargetCore core;
    private int isid;

    CoreSessions(TargetCore core) {
        this.core = core;
    }

    Session open(String target, String initiator) {
        Fabric fabric = new Fabric() {
            @Override
            public int protocolIdentifier() {
                return 5;
            }

            @Override
            public void complete(TargetCommand cmd) {
                // these tests send no commands
            }
        };
        return core.openSession(core.target(target).port(1), fabric, initiator, initiator + ",i,0x" + (++isid));
    }
}
