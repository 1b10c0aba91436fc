package io.hostwide.tcm.lu;

import io.hostwide.scsi.spec.ModePage;

/**
 * A device's mode pages (SPC-4 §7.5, SBC-4 §6.5): current, saved and default values and the changeable mask of
 * Read-Write Error Recovery (01h), Caching (08h), Control (0Ah) and Informational Exceptions Control (1Ch).
 * Saved values live in memory for the life of the device. Mode parameters are shared by all I_T nexuses (SPC-4
 * §7.5.1 allows either); a change raises MODE PARAMETERS CHANGED for the other nexuses.
 *
 * <p>Readers on the I/O path use the volatile snapshots {@link #descriptorSense()}, {@link #writeCacheEnabled()}
 * and {@link #softwareWriteProtect()}; page bytes change only under this object's monitor.
 */
public final class ModePages {
    /** Page codes in ascending order, as MODE SENSE with 3Fh returns them. */
    public static final int[] PAGES = {ModePage.READ_WRITE_ERROR_RECOVERY, ModePage.CACHING, ModePage.CONTROL,
            ModePage.INFORMATIONAL_EXCEPTIONS_CONTROL};

    private final byte[][] current = new byte[64][];
    private final byte[][] saved = new byte[64][];
    private final byte[][] defaults = new byte[64][];
    private final byte[][] changeable = new byte[64][];
    private volatile boolean descriptorSense;
    private volatile boolean writeCacheEnabled;
    private volatile boolean softwareWriteProtect;

    public ModePages(boolean writeCacheEnabled) {
        byte[] rwer = new byte[ModePage.READ_WRITE_ERROR_RECOVERY_LENGTH];
        rwer[0] = ModePage.READ_WRITE_ERROR_RECOVERY;
        rwer[1] = (byte) (rwer.length - 2);
        rwer[ModePage.RWER_FLAGS] = (byte) (ModePage.RWER_AWRE | ModePage.RWER_ARRE); // reallocation is not ours to do, but reads/writes never fail for it
        define(rwer, new byte[rwer.length]);

        byte[] caching = new byte[ModePage.CACHING_LENGTH];
        caching[0] = ModePage.CACHING;
        caching[1] = (byte) (caching.length - 2);
        caching[ModePage.CACHING_FLAGS] = (byte) (writeCacheEnabled ? ModePage.CACHING_WCE : 0);
        byte[] cachingMask = new byte[caching.length];
        cachingMask[ModePage.CACHING_FLAGS] = (byte) ModePage.CACHING_WCE;
        define(caching, cachingMask);

        byte[] control = new byte[ModePage.CONTROL_LENGTH];
        control[0] = ModePage.CONTROL;
        control[1] = (byte) (control.length - 2);
        control[ModePage.CONTROL_BYTE3] = (byte) ModePage.CONTROL_QAM_UNRESTRICTED;
        control[ModePage.CONTROL_BYTE5] = (byte) ModePage.CONTROL_TAS;
        control[ModePage.CONTROL_BUSY_TIMEOUT] = (byte) 0xFF; // unlimited busy timeout period
        control[ModePage.CONTROL_BUSY_TIMEOUT + 1] = (byte) 0xFF;
        byte[] controlMask = new byte[control.length];
        controlMask[ModePage.CONTROL_BYTE2] = (byte) ModePage.CONTROL_D_SENSE;
        controlMask[ModePage.CONTROL_BYTE4] = (byte) ModePage.CONTROL_SWP;
        define(control, controlMask);

        byte[] iec = new byte[ModePage.INFORMATIONAL_EXCEPTIONS_LENGTH];
        iec[0] = ModePage.INFORMATIONAL_EXCEPTIONS_CONTROL;
        iec[1] = (byte) (iec.length - 2);
        iec[ModePage.IEC_FLAGS] = (byte) ModePage.IEC_DEXCPT; // no informational exceptions are reported
        byte[] iecMask = new byte[iec.length];
        iecMask[ModePage.IEC_FLAGS] = (byte) (ModePage.IEC_DEXCPT | ModePage.IEC_LOGERR);
        define(iec, iecMask);
        refreshSnapshots();
    }

    private void define(byte[] page, byte[] mask) {
        int code = page[0] & ModePage.PAGE_CODE_MASK;
        defaults[code] = page.clone();
        current[code] = page.clone();
        saved[code] = page.clone();
        mask[0] = 0;
        mask[1] = 0;
        changeable[code] = mask;
    }

    public static boolean supported(int pageCode) {
        for (int p : PAGES) {
            if (p == pageCode) {
                return true;
            }
        }
        return false;
    }

    /** Length of a page including its 2-byte header, or -1 when unsupported. */
    public int length(int pageCode) {
        byte[] p = pageCode >= 0 && pageCode < 64 ? defaults[pageCode] : null;
        return p == null ? -1 : p.length;
    }

    /** Copies a page as MODE SENSE reports it for page control {@code pc}; PS is set (pages are savable). */
    public synchronized int copy(int pageCode, int pc, byte[] dst, int off) {
        byte[] src = switch (pc) {
            case ModePage.PC_CHANGEABLE -> changeable[pageCode];
            case ModePage.PC_DEFAULT -> defaults[pageCode];
            case ModePage.PC_SAVED -> saved[pageCode];
            default -> current[pageCode];
        };
        System.arraycopy(src, 0, dst, off, src.length);
        dst[off] = (byte) (pageCode | ModePage.PS);
        dst[off + 1] = (byte) (src.length - 2);
        return src.length;
    }

    /** The changeable-bits mask of a page (for MODE SELECT validation); do not modify. */
    public byte[] changeableMask(int pageCode) { return changeable[pageCode]; }

    public synchronized byte[] currentCopy(int pageCode) { return current[pageCode].clone(); }

    /** Installs validated page bytes as current (and saved when {@code save}). */
    public synchronized void install(int pageCode, byte[] page, boolean save) {
        byte[] p = page.clone();
        p[0] = (byte) pageCode;
        current[pageCode] = p;
        if (save) {
            saved[pageCode] = p.clone();
        }
        refreshSnapshots();
    }

    /** Sets WCE directly (device attribute change). */
    public synchronized void writeCacheEnabled(boolean on) {
        byte[] c = current[ModePage.CACHING];
        c[ModePage.CACHING_FLAGS] = (byte) (on ? c[ModePage.CACHING_FLAGS] | ModePage.CACHING_WCE
                : c[ModePage.CACHING_FLAGS] & ~ModePage.CACHING_WCE);
        refreshSnapshots();
    }

    private void refreshSnapshots() {
        descriptorSense = (current[ModePage.CONTROL][ModePage.CONTROL_BYTE2] & ModePage.CONTROL_D_SENSE) != 0;
        softwareWriteProtect = (current[ModePage.CONTROL][ModePage.CONTROL_BYTE4] & ModePage.CONTROL_SWP) != 0;
        writeCacheEnabled = (current[ModePage.CACHING][ModePage.CACHING_FLAGS] & ModePage.CACHING_WCE) != 0;
    }

    /** Control page D_SENSE: report sense in descriptor format. */
    public boolean descriptorSense() { return descriptorSense; }

    /** Caching page WCE. */
    public boolean writeCacheEnabled() { return writeCacheEnabled; }

    /** Control page SWP: the medium is software write protected (SPC-4 §7.5.8). */
    public boolean softwareWriteProtect() { return softwareWriteProtect; }
}
