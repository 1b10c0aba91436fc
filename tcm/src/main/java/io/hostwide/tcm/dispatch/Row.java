package io.hostwide.tcm.dispatch;
import io.hostwide.scsi.spec.CdbGroup;

/** Builder for {@link CommandDescriptor} rows, so command tables read as a list. */
public final class Row {
    private final int opcode;
    private final String name;
    private int serviceAction = -1;
    private int cdbLength;
    private int direction = CommandDescriptor.NO_DATA;
    private byte[] usage;
    private TransferLength transferLength = TransferLength.NONE;
    private int flags;
    private ReservationRule reservation = ReservationRule.WRITE;
    private int alua;
    private int nominal;
    private int recommended;

    private Row(int opcode, String name) {
        this.opcode = opcode;
        this.name = name;
        this.cdbLength = CdbGroup.lengthOf(opcode);
    }

    public static Row of(int opcode, String name) { return new Row(opcode, name); }

    public Row sa(int serviceAction) { this.serviceAction = serviceAction; return this; }

    public Row sa16(int serviceAction) {
        this.serviceAction = serviceAction;
        this.flags |= CommandDescriptor.SA_16BIT;
        return this;
    }

    public Row length(int cdbLength) { this.cdbLength = cdbLength; return this; }

    /** CDB usage data bytes after the opcode (byte 1 onwards, CONTROL included). */
    public Row usage(int... bytes) {
        byte[] u = new byte[bytes.length + 1];
        u[0] = (byte) opcode;
        for (int i = 0; i < bytes.length; i++) {
            u[i + 1] = (byte) bytes[i];
        }
        this.usage = u;
        return this;
    }

    public Row dataIn(TransferLength t) { this.direction = CommandDescriptor.DATA_IN; this.transferLength = t; return this; }

    public Row dataOut(TransferLength t) { this.direction = CommandDescriptor.DATA_OUT; this.transferLength = t; return this; }

    public Row flags(int f) { this.flags |= f; return this; }

    public Row reservation(ReservationRule r) { this.reservation = r; return this; }

    public Row alua(int allowed) { this.alua = allowed; return this; }

    public Row timeouts(int nominalSeconds, int recommendedSeconds) {
        this.nominal = nominalSeconds;
        this.recommended = recommendedSeconds;
        return this;
    }

    public CommandDescriptor handler(CommandHandler h) {
        if (usage == null || usage.length != cdbLength) {
            throw new IllegalStateException(name + ": usage data must cover " + cdbLength + " bytes");
        }
        return new CommandDescriptor(opcode, serviceAction, name, cdbLength, direction, usage, transferLength, flags,
                reservation, alua, nominal, recommended, h);
    }
}
