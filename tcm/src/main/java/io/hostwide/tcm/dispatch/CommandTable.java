package io.hostwide.tcm.dispatch;

import io.hostwide.scsi.spec.ScsiOpcode;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeMap;

/**
 * The commands one device type implements, indexed by operation code and service action. Every opcode without a
 * row gets INVALID COMMAND OPERATION CODE; an opcode with service actions but none matching gets INVALID FIELD IN
 * CDB pointing at the service action field. Each command set (SPC, SBC, reservations, ALUA, copy manager) adds its
 * own rows, and the VPD pages that describe it; the core assembles a device type's table from them.
 */
public final class CommandTable {
    /** {@link #lookup} result code: no row for the opcode. */
    public static final int NO_OPCODE = -1;
    /** {@link #lookup} result code: the opcode has service actions, this one is not among them. */
    public static final int NO_SERVICE_ACTION = -2;

    private final Object[] byOpcode = new Object[256]; // CommandDescriptor, or CommandDescriptor[] by service action
    private final List<CommandDescriptor> all = new ArrayList<>();
    private final TreeMap<Integer, VpdPageWriter> vpdPages = new TreeMap<>();

    public CommandTable add(CommandDescriptor d) {
        int op = d.opcode() & 0xFF;
        if (!d.hasServiceAction()) {
            if (byOpcode[op] != null) {
                throw new IllegalStateException("opcode already in table: " + d.name());
            }
            byOpcode[op] = d;
        } else {
            int size = d.has(CommandDescriptor.SA_16BIT) ? 0x10000 : 32;
            CommandDescriptor[] sas = byOpcode[op] instanceof CommandDescriptor[] a ? a : new CommandDescriptor[size];
            if (byOpcode[op] instanceof CommandDescriptor) {
                throw new IllegalStateException("opcode has a plain row: " + d.name());
            }
            if (sas[d.serviceAction()] != null) {
                throw new IllegalStateException("service action already in table: " + d.name());
            }
            sas[d.serviceAction()] = d;
            byOpcode[op] = sas;
        }
        all.add(d);
        all.sort(Comparator.comparingInt(CommandDescriptor::opcode).thenComparingInt(CommandDescriptor::serviceAction));
        return this;
    }

    /** Adds a VPD page that INQUIRY serves and lists for this table's device type. */
    public CommandTable addVpdPage(int pageCode, VpdPageWriter writer) {
        if (vpdPages.putIfAbsent(pageCode & 0xFF, writer) != null) {
            throw new IllegalStateException("VPD page already in table: " + Integer.toHexString(pageCode));
        }
        return this;
    }

    /** The contributed VPD page {@code pageCode}, or null. */
    public VpdPageWriter vpdPage(int pageCode) { return vpdPages.get(pageCode); }

    /** The contributed VPD page codes, ascending. */
    public int[] vpdPageCodes() {
        int[] r = new int[vpdPages.size()];
        int i = 0;
        for (int code : vpdPages.keySet()) {
            r[i++] = code;
        }
        return r;
    }

    /** Whether any row exists for {@code opcode}. */
    public boolean supportsOpcode(int opcode) { return byOpcode[opcode & 0xFF] != null; }

    /** Whether the opcode's rows are keyed by service action. */
    public boolean hasServiceActions(int opcode) { return byOpcode[opcode & 0xFF] instanceof CommandDescriptor[]; }

    /** The row for a CDB, or null; {@link #lookupStatus} tells why. */
    public CommandDescriptor lookup(byte[] cdb) {
        Object o = byOpcode[cdb[0] & 0xFF];
        if (o instanceof CommandDescriptor d) {
            return d;
        }
        if (o instanceof CommandDescriptor[] sas) {
            int sa = sas.length == 32 ? cdb[1] & 0x1F : (cdb[8] & 0xFF) << 8 | (cdb[9] & 0xFF);
            return sas[sa];
        }
        return null;
    }

    /** @return {@link #NO_OPCODE} or {@link #NO_SERVICE_ACTION} for a CDB {@link #lookup} found no row for */
    public int lookupStatus(byte[] cdb) {
        return byOpcode[cdb[0] & 0xFF] == null ? NO_OPCODE : NO_SERVICE_ACTION;
    }

    /** The row for an opcode/service action pair (REPORT SUPPORTED OPERATION CODES), or null. */
    public CommandDescriptor find(int opcode, int serviceAction) {
        Object o = byOpcode[opcode & 0xFF];
        if (o instanceof CommandDescriptor d) {
            return serviceAction < 0 ? d : null;
        }
        if (o instanceof CommandDescriptor[] sas) {
            return serviceAction >= 0 && serviceAction < sas.length ? sas[serviceAction] : null;
        }
        return null;
    }

    /** Every row, ordered by opcode then service action. */
    public List<CommandDescriptor> all() { return List.copyOf(all); }

    /** Index of the CONTROL byte of a CDB of this row's shape. */
    public static int controlIndex(CommandDescriptor d) {
        return d.opcode() == ScsiOpcode.VARIABLE_LENGTH ? 1 : d.cdbLength() - 1;
    }

    /**
     * Checks reserved bits against the usage data and the CONTROL byte (NACA and LINK are not supported; vendor
     * bits 7..6 are ignored).
     *
     * @return -1 when clean, else {@code byteOffset << 3 | bit} of the first offending bit (highest bit first)
     */
    public static int firstReservedBit(byte[] cdb, CommandDescriptor d) {
        byte[] usage = d.usage();
        int control = controlIndex(d);
        for (int i = 1; i < d.cdbLength(); i++) {
            int bad = i == control ? cdb[i] & 0x3F : cdb[i] & ~usage[i] & 0xFF;
            if (bad != 0) {
                return i << 3 | (31 - Integer.numberOfLeadingZeros(bad));
            }
        }
        return -1;
    }
}
