package io.hostwide.blk.nullb;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;

/**
 * Sparse page store of a memory-backed null device (null_blk's page tree): 4 KiB
 * pages allocated on first write, in a two-level table so a 250 GiB device costs
 * nothing until written. Unwritten or discarded ranges read as zeros. Concurrent
 * I/O to different pages is safe; overlapping concurrent writes give some mix of
 * the data, as on a disk.
 */
final class MemoryStore {
    static final int PAGE_SHIFT = 12;
    static final int PAGE_SIZE = 1 << PAGE_SHIFT;
    private static final int CHUNK_SHIFT = 10;   // pages per second-level array
    private static final int CHUNK = 1 << CHUNK_SHIFT;
    private static final byte[] ZERO = new byte[PAGE_SIZE];
    private static final VarHandle TOP = MethodHandles.arrayElementVarHandle(byte[][][].class);
    private static final VarHandle PAGE = MethodHandles.arrayElementVarHandle(byte[][].class);

    private final long capacity;
    private final byte[][][] top;

    MemoryStore(long capacity) {
        this.capacity = capacity;
        long pages = (capacity + PAGE_SIZE - 1) >>> PAGE_SHIFT;
        this.top = new byte[(int) ((pages + CHUNK - 1) >>> CHUNK_SHIFT)][][];
    }

    /** Copies [offset, offset+len) into {@code dst} at its position (position unchanged). */
    void read(long offset, int len, ByteBuffer dst) {
        int at = dst.position();
        while (len > 0) {
            long pageNo = offset >>> PAGE_SHIFT;
            int in = (int) (offset & (PAGE_SIZE - 1));
            int n = Math.min(len, PAGE_SIZE - in);
            byte[] page = page(pageNo, false);
            dst.put(at, page == null ? ZERO : page, page == null ? 0 : in, n);
            at += n;
            offset += n;
            len -= n;
        }
    }

    /** Copies {@code src}'s bytes at its position into [offset, offset+len). */
    void write(long offset, int len, ByteBuffer src) {
        int at = src.position();
        while (len > 0) {
            long pageNo = offset >>> PAGE_SHIFT;
            int in = (int) (offset & (PAGE_SIZE - 1));
            int n = Math.min(len, PAGE_SIZE - in);
            byte[] page = page(pageNo, true);
            src.get(at, page, in, n);
            at += n;
            offset += n;
            len -= n;
        }
    }

    /** Drops whole pages and zeroes partial ones ({@code null_handle_discard}). */
    void discard(long offset, long len) {
        while (len > 0) {
            long pageNo = offset >>> PAGE_SHIFT;
            int in = (int) (offset & (PAGE_SIZE - 1));
            int n = (int) Math.min(len, PAGE_SIZE - in);
            byte[][] chunk = (byte[][]) TOP.getAcquire(top, (int) (pageNo >>> CHUNK_SHIFT));
            if (chunk != null) {
                int idx = (int) (pageNo & (CHUNK - 1));
                if (n == PAGE_SIZE) {
                    PAGE.setRelease(chunk, idx, (byte[]) null);
                } else {
                    byte[] page = (byte[]) PAGE.getAcquire(chunk, idx);
                    if (page != null) {
                        System.arraycopy(ZERO, 0, page, in, n);
                    }
                }
            }
            offset += n;
            len -= n;
        }
    }

    long capacity() {
        return capacity;
    }

    /** Pages in use (for stat and tests). */
    long pagesAllocated() {
        long n = 0;
        for (int i = 0; i < top.length; i++) {
            byte[][] chunk = (byte[][]) TOP.getAcquire(top, i);
            if (chunk != null) {
                for (int j = 0; j < chunk.length; j++) {
                    if (PAGE.getAcquire(chunk, j) != null) {
                        n++;
                    }
                }
            }
        }
        return n;
    }

    /** The page, created if asked; creation is serialised, lookups are lock-free (release/acquire pairs). */
    private byte[] page(long pageNo, boolean create) {
        int ti = (int) (pageNo >>> CHUNK_SHIFT);
        int pi = (int) (pageNo & (CHUNK - 1));
        byte[][] chunk = (byte[][]) TOP.getAcquire(top, ti);
        if (chunk == null) {
            if (!create) {
                return null;
            }
            synchronized (this) {
                chunk = (byte[][]) TOP.getAcquire(top, ti);
                if (chunk == null) {
                    chunk = new byte[CHUNK][];
                    TOP.setRelease(top, ti, chunk);
                }
            }
        }
        byte[] page = (byte[]) PAGE.getAcquire(chunk, pi);
        if (page == null && create) {
            synchronized (this) {
                page = (byte[]) PAGE.getAcquire(chunk, pi);
                if (page == null) {
                    page = new byte[PAGE_SIZE];
                    PAGE.setRelease(chunk, pi, page);
                }
            }
        }
        return page;
    }
}
