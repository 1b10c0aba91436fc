package io.hostwide.cli.load;

import java.util.Locale;

/** fio's {@code --rw} patterns. */
public enum RwMode {
    READ(false, false, 100),
    WRITE(false, false, 0),
    RANDREAD(true, false, 100),
    RANDWRITE(true, false, 0),
    /** Sequential mixed reads and writes (fio's {@code rw}/{@code readwrite}). */
    RW(false, true, 50),
    RANDRW(true, true, 50);

    final boolean random;
    final boolean mixed;
    final int defaultReadPercent;

    RwMode(boolean random, boolean mixed, int defaultReadPercent) {
        this.random = random;
        this.mixed = mixed;
        this.defaultReadPercent = defaultReadPercent;
    }

    /** Reads and writes mixed ({@code --rwmixread} applies). */
    public boolean mixed() {
        return mixed;
    }

    /** fio's read percentage when {@code --rwmixread} is not given. */
    public int defaultReadPercent() {
        return defaultReadPercent;
    }

    public String fioName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Accepts fio's spellings, case-insensitively. */
    public static RwMode parse(String s) {
        String k = s.trim().toLowerCase(Locale.ROOT);
        return switch (k) {
            case "read" -> READ;
            case "write" -> WRITE;
            case "randread" -> RANDREAD;
            case "randwrite" -> RANDWRITE;
            case "rw", "readwrite" -> RW;
            case "randrw" -> RANDRW;
            default -> throw new IllegalArgumentException("--rw: unknown mode '" + s
                    + "' (expected read, write, randread, randwrite, rw or randrw)");
        };
    }
}
