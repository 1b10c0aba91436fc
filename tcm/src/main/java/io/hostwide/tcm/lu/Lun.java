package io.hostwide.tcm.lu;

/**
 * A logical unit exported through one target port (LIO's se_lun): its LUN number on the port, the device behind
 * it, and the ALUA group this export belongs to. The group reference is swapped atomically by the ALUA layer and
 * read without a lock on the I/O path (seed 002, patch 5: never a transient null). The port is known by name only:
 * the target port owns its LUNs, not the other way round.
 */
public final class Lun {
    private final String portName;
    private final int lunNumber;
    private final Device device;
    private volatile TargetPortGroup aluaGroup; // read by the ALUA gate; written in one step by group changes
    /** This export's share of the device's commands (a device exported on two ports has two). */
    private final DeviceStats stats = new DeviceStats();

    /** @param portName the SCSI target port name of the exporting port (for dumps and messages) */
    public Lun(String portName, int lunNumber, Device device) {
        this.portName = portName;
        this.lunNumber = lunNumber;
        this.device = device;
        this.aluaGroup = device.defaultPortGroup();
    }

    public String portName() { return portName; }

    public int lunNumber() { return lunNumber; }

    public Device device() { return device; }

    /** Commands that reached the device through this LUN. */
    public DeviceStats stats() { return stats; }

    public TargetPortGroup aluaGroup() { return aluaGroup; }

    public void aluaGroup(TargetPortGroup group) {
        if (group == null) {
            throw new IllegalArgumentException("a LUN always belongs to a target port group");
        }
        this.aluaGroup = group;
    }

    @Override
    public String toString() { return "Lun[" + portName + " lun " + lunNumber + " -> " + device.name() + "]"; }
}
