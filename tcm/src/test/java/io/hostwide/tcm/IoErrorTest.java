package io.hostwide.tcm;

import io.hostwide.scsi.spec.Asc;
import io.hostwide.scsi.spec.SenseKey;
import io.hostwide.tcm.spi.Backstore;
import io.hostwide.tcm.backstore.RamBackstore;
import io.hostwide.tcm.lu.DeviceAttributes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static io.hostwide.tcm.Harness.BLOCK;
import static io.hostwide.tcm.Harness.BLOCKS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A backstore that fails: the command gets its sense (SBC-4 §4.18: MEDIUM ERROR with the LBA in INFORMATION) and the
 * cause reaches the log with the device and the LBA, so the operator is not left with sense and an empty log.
 * Device names are this test's own: the log's rate limit is per device, so other tests' errors cannot hide these.
 */
class IoErrorTest {
    private final Logger datapath = Logger.getLogger("io.hostwide.tcm.datapath");
    private final List<String> logged = new CopyOnWriteArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord r) { logged.add(r.getMessage()); }

        @Override
        public void flush() { }

        @Override
        public void close() { }
    };

    @BeforeEach
    void listen() { datapath.addHandler(capture); }

    @AfterEach
    void stop() { datapath.removeHandler(capture); }

    /** RAM that fails every read and write with the given error. */
    private static Backstore failing(String why) {
        RamBackstore ram = new RamBackstore(BLOCKS * BLOCK, BLOCK);
        return new Backstore() {
            public int blockSize() { return ram.blockSize(); }
            public long blockCount() { return ram.blockCount(); }
            public boolean blocking() { return false; }
            public void read(long lba, ByteBuffer dst) throws IOException { throw new IOException(why); }
            public void write(long lba, ByteBuffer src, boolean fua) throws IOException { throw new IOException(why); }
            public void flush() throws IOException { throw new IOException(why); }
            public boolean supportsUnmap() { return false; }
            public boolean unmapReturnsZeros() { return false; }
            public void unmap(long lba, long blocks) throws IOException { throw new IOException(why); }
            public long provisioningRun(long lba, long maxBlocks) { return maxBlocks; }
            public String describe() { return "failing"; }
            public void close() { }
        };
    }

    @Test
    void aFailedReadIsMediumErrorAndItsCauseIsLogged() {
        try (Harness h = new Harness("failing-read", new DeviceAttributes(), failing("injected EIO on read"), false)) {
            TestFabric.Result r = h.in(Harness.read10(100, 2), 2 * BLOCK);
            assertThat(r.senseKey()).isEqualTo(SenseKey.MEDIUM_ERROR);
            assertThat(r.ascAscq()).isEqualTo(Asc.UNRECOVERED_READ_ERROR);
            assertThat(r.information()).isEqualTo(100);
        }
        assertThat(logged).anySatisfy(l -> assertThat(l)
                .contains("failing-read: READ of 2 blocks at LBA 100").contains("injected EIO on read"));
    }

    @Test
    void aFailedWriteOrFlushIsWriteErrorAndItsCauseIsLogged() {
        try (Harness h = new Harness("failing-write", new DeviceAttributes(), failing("injected ENOSPC"), false)) {
            TestFabric.Result w = h.out(Harness.write10(7, 1), new byte[BLOCK]);
            assertThat(w.senseKey()).isEqualTo(SenseKey.MEDIUM_ERROR);
            assertThat(w.ascAscq()).isEqualTo(Asc.WRITE_ERROR);
            TestFabric.Result sync = h.none(Harness.cdb(0x35, 0, 0, 0, 0, 0, 0, 0, 0, 0));
            assertThat(sync.ascAscq()).isEqualTo(Asc.WRITE_ERROR);
        }
        assertThat(logged).anySatisfy(l -> assertThat(l).contains("failing-write: WRITE of 1 block at LBA 7").contains("ENOSPC"));
        assertThat(logged).anySatisfy(l -> assertThat(l).contains("failing-write: SYNCHRONIZE CACHE failed"));
    }
}
