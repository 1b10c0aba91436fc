package io.hostwide.tcm.lu;

import io.hostwide.tcm.alua.AluaGroups;
import io.hostwide.tcm.model.Device;
import io.hostwide.tcm.pr.PersistentReservations;
import io.hostwide.tcm.xcopy.CopyResults;

/**
 * The per-logical-unit state of the layers that sit between the command table and the handlers (LIO keeps them
 * in se_device): persistent and SPC-2 reservations, ALUA target port groups and held EXTENDED COPY results (the
 * task-set ordering state is {@link Device#taskSet()}). One object per {@link Device}, created with it.
 */
public final class DeviceServices {
    private final PersistentReservations reservations;
    private final AluaGroups alua;
    private final CopyResults copyResults = new CopyResults();

    public DeviceServices(Device device) {
        this.reservations = new PersistentReservations(device);
        this.alua = new AluaGroups(device);
    }

    public PersistentReservations reservations() { return reservations; }

    public AluaGroups alua() { return alua; }

    public CopyResults copyResults() { return copyResults; }
}
