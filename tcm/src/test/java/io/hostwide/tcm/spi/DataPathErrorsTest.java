package io.hostwide.tcm.spi;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.assertj.core.api.Assertions.assertThat;

/** The rate limit and the content of the data-path error log, on a hand-driven clock. */
class DataPathErrorsTest {
    private static final long SECOND = 1_000_000_000L;

    private final List<String> lines = new CopyOnWriteArrayList<>();
    private long now;

    private DataPathErrors log(int burst, long window) {
        Logger logger = Logger.getAnonymousLogger();
        logger.setUseParentHandlers(false);
        logger.addHandler(new Handler() {
            @Override
            public void publish(LogRecord r) {
                if (r.getLevel().intValue() >= Level.WARNING.intValue()) {
                    lines.add(r.getMessage());
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        });
        return new DataPathErrors(logger, () -> now, burst, window);
    }

    @Test
    void aLineNamesTheDeviceTheOperationTheLbaAndTheCause() {
        DataPathErrors d = log(10, 10 * SECOND);
        d.report("ram0", "WRITE", 4096, 8, new IOException("No space left on device"));
        d.report("ram0", "SYNCHRONIZE CACHE", -1, -1, new IOException("EIO"));
        assertThat(lines).containsExactly(
                "ram0: WRITE of 8 blocks at LBA 4096 failed: java.io.IOException: No space left on device",
                "ram0: SYNCHRONIZE CACHE failed: java.io.IOException: EIO");
    }

    @Test
    void oneFailingDeviceDoesNotHideAnothersErrors() {
        DataPathErrors d = log(2, 10 * SECOND);
        for (int i = 0; i < 10; i++) {
            d.report("bad", "READ", i, 1, new IOException("EIO"));
        }
        d.report("good", "WRITE", 0, 1, new IOException("ENOSPC"));
        assertThat(lines).hasSize(3);
        assertThat(lines.get(2)).startsWith("good: WRITE");
    }

    @Test
    void atMostBurstLinesPerWindowThenOneLineCountsTheRest() {
        DataPathErrors d = log(3, 10 * SECOND);
        for (int i = 0; i < 5; i++) {
            d.report("f0", "READ", i, 1, new IOException("EIO"));
        }
        assertThat(lines).hasSize(3);
        assertThat(d.reported()).isEqualTo(5);
        assertThat(d.suppressed()).isEqualTo(2);

        now += 10 * SECOND - 1; // still the same window
        d.report("f0", "READ", 5, 1, new IOException("EIO"));
        assertThat(lines).hasSize(3);

        now += 1; // a new window: the count of the left-out ones comes first
        d.report("f0", "READ", 6, 1, new IOException("EIO"));
        assertThat(lines).hasSize(5);
        assertThat(lines.get(3)).isEqualTo("f0: 3 more data-path errors were not logged (at most 3 per 10 s)");
        assertThat(lines.get(4)).startsWith("f0: READ of 1 block at LBA 6 failed");
        assertThat(d.suppressed()).isEqualTo(3);
    }

    /** Issue 16: a fenced RBD client answers BUSY to every command while it reopens; it logs that episode itself. */
    @Test
    void aStatusTheBackstoreLogsItselfIsCountedNotLogged() {
        DataPathErrors d = log(10, 10 * SECOND);
        for (int i = 0; i < 50; i++) {
            d.report("rbd0", "WRITE", i, 1, new BackstoreStatusException(SenseReason.BUSY, "fenced", true));
        }
        d.report("rbd0", "WRITE", 0, 1, new BackstoreStatusException(SenseReason.BUSY, "timed out"));
        assertThat(lines).hasSize(1);
        assertThat(lines.get(0)).contains("timed out");
        assertThat(d.reported()).isEqualTo(51);
        assertThat(d.suppressed()).isEqualTo(50);
    }
}
