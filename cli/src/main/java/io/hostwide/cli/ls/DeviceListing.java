package io.hostwide.cli.ls;

import io.hostwide.blk.api.BlockDevice;
import io.hostwide.iscsi.initiator.IscsiDeviceProvider;
import io.hostwide.scsi.mid.ScsiDevice;
import io.hostwide.scsi.mid.ScsiHost;
import io.hostwide.scsi.sd.ScsiDisk;
import io.hostwide.loop.HbaDisk;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * What {@code ls} shows for one opened device: every SCSI device the scan found on the host(s) the device came with
 * ({@code debug:add_host=2,num_tgts=2,max_luns=2} is eight), in H:C:T:L order; a device without SCSI is its own line.
 */
final class DeviceListing {
    private static final Comparator<LsDevice> HCTL = Comparator.comparing(LsDevice::host)
            .thenComparing(LsDevice::channel).thenComparing(LsDevice::target).thenComparing(LsDevice::lun);

    private DeviceListing() {
    }

    static List<LsDevice> of(BlockDevice device, boolean verbose) {
        List<ScsiHost> hosts = new ArrayList<>();
        if (device instanceof HbaDisk d) {
            hosts.addAll(d.hba().hosts());                    // loop: and debug: HBAs, add_host of them
        } else if (device instanceof IscsiDeviceProvider.IscsiDisk d) {
            hosts.add(d.hba().host());                        // one iSCSI session is one host
        } else if (device instanceof ScsiDisk d) {
            hosts.add(d.scsiDevice().host());
        } else {
            return List.of(LsDevice.ofBlock(device, verbose));
        }
        return ofHosts(hosts, verbose);
    }

    static List<LsDevice> ofHosts(List<ScsiHost> hosts, boolean verbose) {
        List<LsDevice> out = new ArrayList<>();
        for (ScsiHost h : hosts) {
            for (ScsiDevice d : h.devices()) {
                out.add(LsDevice.of(d, verbose));
            }
        }
        out.sort(HCTL);
        return out;
    }
}
