package io.hostwide.tcm.lu;

/**
 * The asymmetric access state of a target port group (SPC-4 §5.15.2.4), immutable: a group changes state by
 * publishing a new record in one volatile write, so I/O reads a consistent (state, status, preferred) triple
 * without a lock (seed 002, patches 4-5).
 *
 * @param state     {@link #ACTIVE_OPTIMIZED} ... {@link #TRANSITIONING} (REPORT TARGET PORT GROUPS byte 0 bits 3..0)
 * @param status    {@link #STATUS_NONE}, {@link #STATUS_EXPLICIT} or {@link #STATUS_IMPLICIT} (SPC-4 Table 167)
 * @param preferred the PREF bit (SPC-4 §6.27)
 */
public record AluaAccessState(int state, int status, boolean preferred) {
    public static final int ACTIVE_OPTIMIZED = 0x0;
    public static final int ACTIVE_NON_OPTIMIZED = 0x1;
    public static final int STANDBY = 0x2;
    public static final int UNAVAILABLE = 0x3;
    public static final int OFFLINE = 0xE;
    public static final int TRANSITIONING = 0xF;

    public static final int STATUS_NONE = 0x00;
    public static final int STATUS_EXPLICIT = 0x01;
    public static final int STATUS_IMPLICIT = 0x02;

    public static final AluaAccessState INITIAL = new AluaAccessState(ACTIVE_OPTIMIZED, STATUS_NONE, false);

    public AluaAccessState {
        if (!valid(state)) {
            throw new IllegalArgumentException("not an asymmetric access state: " + state);
        }
    }

    /** Whether {@code s} names a state this core implements (LBA dependent, 4h, is not one). */
    public static boolean valid(int s) {
        return s == ACTIVE_OPTIMIZED || s == ACTIVE_NON_OPTIMIZED || s == STANDBY || s == UNAVAILABLE
                || s == OFFLINE || s == TRANSITIONING;
    }

    public boolean active() { return state == ACTIVE_OPTIMIZED || state == ACTIVE_NON_OPTIMIZED; }

    public AluaAccessState withState(int s, int st) { return new AluaAccessState(s, st, preferred); }
}
