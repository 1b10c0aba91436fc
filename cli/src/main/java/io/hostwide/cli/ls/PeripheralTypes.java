package io.hostwide.cli.ls;

/** lsscsi's short names of the INQUIRY PERIPHERAL DEVICE TYPE (SPC-6 §6.7.2, table 150). */
final class PeripheralTypes {
    private static final String[] NAMES = {
        "disk", "tape", "printer", "process", "worm", "cd/dvd", "scanner", "optical",
        "mediumx", "comms", "(0xa)", "(0xb)", "storage", "enclosu", "sim dsk", "opti rd",
        "bridge", "osd", "adi", "(0x13)", "zbc", "(0x15)", "(0x16)", "(0x17)",
        "(0x18)", "(0x19)", "(0x1a)", "(0x1b)", "(0x1c)", "(0x1d)", "wlun", "no dev"};

    private PeripheralTypes() {
    }

    static String name(int peripheralType) {
        return NAMES[peripheralType & 0x1f];
    }
}
