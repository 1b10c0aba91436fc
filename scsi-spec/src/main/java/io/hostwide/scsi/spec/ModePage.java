package io.hostwide.scsi.spec;

/**
 * Mode parameters (SPC-4 §7.5, SBC-4 §6.5).
 * <pre>
 * Mode parameter header(6), 4 bytes:        Mode parameter header(10), 8 bytes:
 *  byte 0  MODE DATA LENGTH (n - 1)          byte 0-1 MODE DATA LENGTH (n - 2)
 *  byte 1  MEDIUM TYPE                       byte 2   MEDIUM TYPE
 *  byte 2  DEVICE-SPECIFIC PARAMETER         byte 3   DEVICE-SPECIFIC PARAMETER (SBC: WP(7), DPOFUA(4))
 *  byte 3  BLOCK DESCRIPTOR LENGTH           byte 4   reserved(7..1) | LONGLBA(0)
 *                                            byte 5   reserved
 *                                            byte 6-7 BLOCK DESCRIPTOR LENGTH
 * Short LBA block descriptor (SBC-4 §6.5.2.2), 8 bytes: NUMBER OF BLOCKS(4), reserved(1), BLOCK LENGTH(3).
 * Long LBA block descriptor (§6.5.2.3), 16 bytes: NUMBER OF BLOCKS(8), reserved(4), BLOCK LENGTH(4).
 * Page_0 format: PS(7) | SPF(6)=0 | PAGE CODE(5..0), PAGE LENGTH (n - 1).
 * Sub_page format: PS(7) | SPF(6)=1 | PAGE CODE, SUBPAGE CODE, PAGE LENGTH(2) (n - 3).
 * </pre>
 */
public final class ModePage {
    private ModePage() {}

    public static final int HEADER6_LENGTH = 4;
    public static final int HEADER10_LENGTH = 8;
    public static final int SHORT_BLOCK_DESCRIPTOR_LENGTH = 8;
    public static final int LONG_BLOCK_DESCRIPTOR_LENGTH = 16;
    /** SBC-4 §6.5.1 device-specific parameter: WP(7), DPOFUA(4). */
    public static final int DEVICE_SPECIFIC_WP = 0x80;
    public static final int DEVICE_SPECIFIC_DPOFUA = 0x10;
    public static final int PS = 0x80;
    public static final int SPF = 0x40;
    public static final int PAGE_CODE_MASK = 0x3F;

    /** PAGE CONTROL field of MODE SENSE (SPC-4 §6.11.1 Table 160). */
    public static final int PC_CURRENT = 0;
    public static final int PC_CHANGEABLE = 1;
    public static final int PC_DEFAULT = 2;
    public static final int PC_SAVED = 3;

    public static final int READ_WRITE_ERROR_RECOVERY = 0x01;
    public static final int DISCONNECT_RECONNECT = 0x02;
    public static final int FORMAT_DEVICE = 0x03;
    public static final int CACHING = 0x08;
    public static final int CONTROL = 0x0A;
    public static final int POWER_CONDITION = 0x1A;
    public static final int INFORMATIONAL_EXCEPTIONS_CONTROL = 0x1C;
    public static final int ALL_PAGES = 0x3F;
    public static final int SUBPAGE_NONE = 0x00;
    public static final int SUBPAGE_ALL = 0xFF;

    /** Read-Write Error Recovery page (SBC-4 §6.5.10): 12 bytes; byte 2 AWRE(7) ARRE(6) TB(5) RC(4) EER(3) PER(2) DTE(1) DCR(0). */
    public static final int READ_WRITE_ERROR_RECOVERY_LENGTH = 12;
    public static final int RWER_FLAGS = 2;
    public static final int RWER_AWRE = 0x80;
    public static final int RWER_ARRE = 0x40;

    /** Caching page (SBC-4 §6.5.5): 20 bytes; byte 2 IC ABPF CAP DISC SIZE WCE(2) MF RCD(0). */
    public static final int CACHING_LENGTH = 20;
    public static final int CACHING_FLAGS = 2;
    public static final int CACHING_WCE = 0x04;
    public static final int CACHING_RCD = 0x01;

    /**
     * Control page (SPC-4 §7.5.8): 12 bytes.
     * byte 2: TST(7..5) TMF_ONLY(4) DPICZ(3) D_SENSE(2) GLTSD(1) RLEC(0);
     * byte 3: QUEUE ALGORITHM MODIFIER(7..4) NUAR(3) QERR(2..1);
     * byte 4: VS RAC UA_INTLCK_CTRL(5..4) SWP(3);  byte 5: ATO(7) TAS(6) ATMPE(5) RWWP(4) AUTOLOAD MODE(2..0);
     * byte 8-9 BUSY TIMEOUT PERIOD; byte 10-11 EXTENDED SELF-TEST COMPLETION TIME.
     */
    public static final int CONTROL_LENGTH = 12;
    public static final int CONTROL_BYTE2 = 2;
    public static final int CONTROL_D_SENSE = 0x04;
    public static final int CONTROL_GLTSD = 0x02;
    public static final int CONTROL_BYTE3 = 3;
    public static final int CONTROL_QAM_UNRESTRICTED = 0x10;
    public static final int CONTROL_BYTE4 = 4;
    public static final int CONTROL_SWP = 0x08;
    public static final int CONTROL_UA_INTLCK_SHIFT = 4;
    public static final int CONTROL_BYTE5 = 5;
    public static final int CONTROL_TAS = 0x40;
    public static final int CONTROL_BUSY_TIMEOUT = 8;

    /** Informational Exceptions Control page (SPC-4 §7.5.10): 12 bytes; byte 2 PERF(7) EBF(5) EWASC(4) DEXCPT(3) TEST(2) EBACKERR(1) LOGERR(0); byte 3 MRIE(3..0). */
    public static final int INFORMATIONAL_EXCEPTIONS_LENGTH = 12;
    public static final int IEC_FLAGS = 2;
    public static final int IEC_DEXCPT = 0x08;
    public static final int IEC_TEST = 0x04;
    public static final int IEC_LOGERR = 0x01;
    public static final int IEC_MRIE = 3;
}
