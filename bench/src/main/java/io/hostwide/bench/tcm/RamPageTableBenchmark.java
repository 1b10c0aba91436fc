package io.hostwide.bench.tcm;

import io.hostwide.tcm.backstore.RamBackstore;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * 4 KiB random reads from a RAM backstore: the three-level radix page table (issue 12) against the flat page table
 * it replaced (one AtomicReferenceArray slot per 64 KiB page for the whole LUN, reproduced below as it was), over
 * 256 MiB of written pages in a 1 GiB LUN. The reads are the benchmark path of serve (iscsi-perf, 4 KiB random),
 * so the extra two dependent loads of the radix must not show. Run with -t 1 and -t 2.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Benchmark)
public class RamPageTableBenchmark {
    static final long LUN = 1L << 30;
    static final long WRITTEN = 256L << 20;
    static final int READ = 4096;

    @Param({"radix", "flat"})
    String table;

    Reader reader;

    /** The part of a backstore this benchmark calls. */
    interface Reader {
        void read(long lba, ByteBuffer dst);
    }

    /** The page table before issue 12: flat, sized for the whole LUN up front. */
    static final class FlatPages implements Reader {
        static final int PAGE = 64 * 1024;
        final AtomicReferenceArray<byte[]> pages;
        final int blockSize;

        FlatPages(long size, int blockSize) {
            this.pages = new AtomicReferenceArray<>((int) (size / PAGE));
            this.blockSize = blockSize;
        }

        void write(long lba, ByteBuffer src) {
            long pos = lba * blockSize;
            while (src.hasRemaining()) {
                int pi = (int) (pos / PAGE);
                int off = (int) (pos % PAGE);
                int n = Math.min(src.remaining(), PAGE - off);
                byte[] p = pages.get(pi);
                if (p == null) {
                    pages.compareAndSet(pi, null, new byte[PAGE]);
                    p = pages.get(pi);
                }
                src.get(p, off, n);
                pos += n;
            }
        }

        @Override
        public void read(long lba, ByteBuffer dst) {
            long pos = lba * blockSize;
            while (dst.hasRemaining()) {
                int pi = (int) (pos / PAGE);
                int off = (int) (pos % PAGE);
                int n = Math.min(dst.remaining(), PAGE - off);
                byte[] page = pages.get(pi);
                if (page == null) {
                    dst.position(dst.position() + n); // never taken here: every page read was written
                } else {
                    dst.put(page, off, n);
                }
                pos += n;
            }
        }
    }

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        ByteBuffer fill = ByteBuffer.allocate(1 << 20);
        if (table.equals("flat")) {
            FlatPages f = new FlatPages(LUN, 512);
            for (long at = 0; at < WRITTEN; at += fill.capacity()) {
                f.write(at / 512, fill.clear());
            }
            reader = f;
        } else {
            RamBackstore r = new RamBackstore(LUN, 512);
            for (long at = 0; at < WRITTEN; at += fill.capacity()) {
                r.write(at / 512, fill.clear(), false);
            }
            reader = r::read;
        }
    }

    @State(Scope.Thread)
    public static class PerThread {
        final ByteBuffer buf = ByteBuffer.allocate(READ);
        final SplittableRandom random = new SplittableRandom(42);
    }

    @Benchmark
    public ByteBuffer read4k(PerThread t) {
        long lba = t.random.nextLong(WRITTEN / READ) * (READ / 512);
        reader.read(lba, t.buf.clear());
        return t.buf;
    }
}
