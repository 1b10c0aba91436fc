package io.hostwide.iscsi.server;

import io.hostwide.iscsi.pdu.Digest;
import io.hostwide.iscsi.pdu.HotPdu;
import io.hostwide.iscsi.spec.Bhs;
import io.hostwide.iscsi.spec.Codes;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ScatteringByteChannel;
import java.util.zip.CRC32C;

/**
 * Reads a large SCSI Data-Out's payload (RFC 7143 §11.7) from the socket straight into its command's Data-Out buffer
 * at the PDU's buffer offset, instead of into the connection's receive buffer and then copying it over (issue 13: at
 * 1 MiB writes that copy was 30% of the server's CPU).
 *
 * <p>Once the reader has a Data-Out's BHS (and header digest) but not its payload, and the task is found, waiting
 * and the PDU fits its sequence ({@link R2tSequencer#openDirect}), the bytes of the payload already received are
 * copied once and the rest is read with a scattering read: the command buffer's remaining slice first, then the
 * receive buffer, limited to the padding and data digest plus the next PDU's header, so that a following large
 * Data-Out is seen before its payload is read, and placed the same way. The data digest is computed over the payload
 * where it lands, as it arrives. Everything else (unknown or ended tasks, out-of-sequence PDUs, small payloads, the
 * trace) takes the buffered path, which answers each case as before.
 *
 * <p>Both buffers are direct memory (the core's pooled Data-Out buffers and the connection's receive buffer), so NIO
 * reads into them without a temporary direct buffer. One per connection, reader thread only.
 */
final class DataOutPlacement {
    /**
     * Payload still to come below which a Data-Out takes the buffered path: copying a few KiB costs less than the
     * extra read a direct placement needs.
     */
    static final int MIN_DIRECT = 16 * 1024;

    private final ByteBuffer header = ByteBuffer.allocate(Bhs.LENGTH);
    private final ByteBuffer[] dsts = new ByteBuffer[2];
    private final CRC32C crc = new CRC32C();
    private Task task;
    /** The payload's place in the task's buffer; position = bytes received. */
    private ByteBuffer target;
    /** The same bytes, position = bytes already digested. */
    private ByteBuffer hashed;
    private boolean dataDigest;
    /** Bytes after the payload: padding to 4 bytes and the data digest. */
    private int tail;
    /** The next PDU's BHS and header digest: how far past the tail a read may go. */
    private int headerLength;
    private int itt;
    private int ttt;
    private int dataSn;
    private int bufferOffset;
    private int length;
    private boolean fin;
    /**
     * Payloads placed, and their bytes read from the socket straight into place or copied (arrived early); written
     * by the reader only, volatile so that tests may watch them (a few writes per large PDU).
     */
    private volatile long placed;
    private volatile long placedBytes;
    private volatile long copiedBytes;
    /** Whether a payload is being placed, for tests watching from another thread; {@link #task} says it here. */
    private volatile boolean placing;

    /** Whether a payload is being placed (reader thread; tests: {@link #placing()}). */
    boolean active() {
        return task != null;
    }

    boolean placing() {
        return placing;
    }

    long placed() {
        return placed;
    }

    long placedBytes() {
        return placedBytes;
    }

    long copiedBytes() {
        return copiedBytes;
    }

    /**
     * Starts placing the Data-Out {@code v} describes into task {@code t}'s buffer (which {@link
     * R2tSequencer#openDirect} marked receiving): copies the {@code arrived} payload bytes the receive buffer
     * already holds (fewer than the payload). The caller then consumes the receive buffer to its limit.
     */
    void begin(Task t, HotPdu v, int arrived, boolean digest, int nextHeaderLength) {
        ByteBuffer recv = v.buffer();
        header.put(0, recv, v.dataAt() - nextHeaderLength, Bhs.LENGTH);
        task = t;
        placing = true;
        itt = v.initiatorTaskTag();
        ttt = v.targetTransferTag();
        dataSn = v.dataSn();
        bufferOffset = v.bufferOffset();
        length = v.dataLength();
        fin = v.fin();
        dataDigest = digest;
        headerLength = nextHeaderLength;
        tail = (-length & 3) + (digest ? Codes.DIGEST_LENGTH : 0);
        target = t.dataOut.slice(bufferOffset, length);
        target.put(0, recv, v.dataAt(), arrived).position(arrived);
        hashed = target.duplicate().position(0);
        crc.reset();
        copiedBytes += arrived;
        hash();
    }

    /**
     * One read while placing: into the payload's place and on into {@code recv} (in write mode, holding only bytes
     * past the payload), which takes at most the tail and the next PDU's header. Returns what the channel returned.
     */
    long read(ScatteringByteChannel ch, ByteBuffer recv) throws IOException {
        int limit = recv.limit();
        recv.limit(Math.min(recv.capacity(), Math.max(recv.position() + 1, tail + headerLength)));
        try {
            long n;
            if (target.hasRemaining()) {
                int before = target.position();
                dsts[0] = target;
                dsts[1] = recv;
                n = ch.read(dsts);
                placedBytes += target.position() - before;
                hash();
            } else {
                n = ch.read(recv);
            }
            return n;
        } finally {
            recv.limit(limit);
        }
    }

    /**
     * When the payload and its tail are in, ends the placement: checks the data digest, consumes the tail from
     * {@code recv} (read mode) and hands the PDU to {@code ffp}. Returns false while bytes are still missing.
     */
    boolean finish(ByteBuffer recv, FullFeature ffp) {
        if (target.hasRemaining() || recv.remaining() < tail) {
            return false;
        }
        boolean digestOk = true;
        int at = recv.position();
        if (dataDigest) {
            int pad = tail - Codes.DIGEST_LENGTH;
            for (int i = 0; i < pad; i++) { // the padding is part of the digested segment (RFC 7143 §13.1)
                crc.update(recv.get(at + i));
            }
            digestOk = (int) crc.getValue() == Digest.get(recv, at + pad);
        }
        recv.position(at + tail);
        Task t = end();
        placed++;
        ffp.closeDirect(t, itt, ttt, dataSn, bufferOffset, length, fin, digestOk, header);
        return true;
    }

    /** The connection ended while a payload was on its way: its task is left to the connection's cleanup. */
    void abandon(FullFeature ffp) {
        if (task != null) {
            Task t = end();
            ffp.closeDirect(t, itt, ttt, dataSn, bufferOffset, length, fin, false, null);
        }
    }

    private Task end() {
        Task t = task;
        task = null;
        placing = false;
        target = null;
        hashed = null;
        dsts[0] = null;
        dsts[1] = null;
        return t;
    }

    /** Digests the payload bytes received since the last call, while they are still in cache. */
    private void hash() {
        if (dataDigest) {
            crc.update(hashed.limit(target.position()));
        }
    }
}
