package io.hostwide.cli.gateway;

import io.hostwide.iscsi.pdu.DataIn;
import io.hostwide.iscsi.pdu.DataOut;
import io.hostwide.iscsi.pdu.DecodeResult;
import io.hostwide.iscsi.pdu.LoginRequest;
import io.hostwide.iscsi.pdu.LoginResponse;
import io.hostwide.iscsi.pdu.Pdu;
import io.hostwide.iscsi.pdu.PduDecoder;
import io.hostwide.iscsi.pdu.PduEncoder;
import io.hostwide.iscsi.pdu.R2t;
import io.hostwide.iscsi.pdu.ScsiCommand;
import io.hostwide.iscsi.pdu.ScsiResponse;
import io.hostwide.iscsi.spec.Bhs;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * A one-command-at-a-time iSCSI initiator for the gateway failover test, built on the PDU codec: login to LUN 0 of a
 * target, then SCSI commands with their status and sense. Plain socket streams, so a read times out (a frozen or
 * dead gateway is noticed) instead of blocking forever.
 */
final class StampClient implements AutoCloseable {
    static final int BLOCK = 512;
    static final int GOOD = 0x00;
    static final int CHECK_CONDITION = 0x02;

    /** One command's outcome: status, sense key / ASC / ASCQ (when CHECK CONDITION) and Data-In. */
    record Result(int status, int senseKey, int asc, int ascq, byte[] data) {
        boolean good() { return status == GOOD; }

        @Override
        public String toString() {
            return status == CHECK_CONDITION ? String.format("CHECK CONDITION %x/%02x/%02x", senseKey, asc, ascq)
                    : String.format("status 0x%02x", status);
        }
    }

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private final PduEncoder enc = new PduEncoder(false, false);
    private final PduDecoder dec = PduDecoder.forInitiator(false, false, 1 << 20);
    private int cmdSn = 1;
    private int expStatSn;
    private int itt = 1;

    StampClient(InetSocketAddress portal, String target, int timeoutMillis) throws IOException {
        this(portal, target, timeoutMillis, "iqn.2026-12.io.hostwide:failover-client",
                0x400000000000L | (System.nanoTime() & 0xFFFFFF));
    }

    /**
     * As initiator port {@code initiator} with an ISID of its own that stays the same across logins, as a real
     * initiator's does: its persistent reservations' I_T nexus is the same after it logs in again.
     */
    StampClient(InetSocketAddress portal, String target, int timeoutMillis, String initiator) throws IOException {
        this(portal, target, timeoutMillis, initiator, 0x400000000000L | (initiator.hashCode() & 0xFFFFFF));
    }

    private StampClient(InetSocketAddress portal, String target, int timeoutMillis, String initiator, long isid)
            throws IOException {
        socket = new Socket();
        socket.connect(portal, timeoutMillis);
        socket.setSoTimeout(timeoutMillis);
        in = new DataInputStream(socket.getInputStream());
        out = socket.getOutputStream();
        String keys = "InitiatorName=" + initiator + "\0TargetName=" + target
                + "\0SessionType=Normal\0ImmediateData=Yes\0InitialR2T=No\0";
        send(new LoginRequest(true, false, 1, 3, 0, 0, isid, 0, itt++,
                0, cmdSn, 0, ByteBuffer.wrap(keys.getBytes(StandardCharsets.UTF_8))));
        LoginResponse r = (LoginResponse) receive();
        if (r.statusClass() != 0) {
            throw new IOException("login to " + target + " at " + portal + " refused: class " + r.statusClass()
                    + " detail " + r.statusDetail());
        }
        expStatSn = r.statSn() + 1;
    }

    Result testUnitReady() throws IOException {
        return command(new byte[6], 0, null);
    }

    Result write(long lba, byte[] block) throws IOException {
        byte[] cdb = {0x2a, 0, (byte) (lba >>> 24), (byte) (lba >>> 16), (byte) (lba >>> 8), (byte) lba, 0, 0, 1, 0};
        return command(cdb, 0, block);
    }

    Result read(long lba) throws IOException {
        byte[] cdb = {0x28, 0, (byte) (lba >>> 24), (byte) (lba >>> 16), (byte) (lba >>> 8), (byte) lba, 0, 0, 1, 0};
        return command(cdb, BLOCK, null);
    }

    /** INQUIRY of a VPD page. */
    Result vpd(int page) throws IOException {
        return command(new byte[]{0x12, 1, (byte) page, 0x10, 0, 0}, 0x1000, null);
    }

    /** REPORT TARGET PORT GROUPS, length format. */
    Result reportTargetPortGroups() throws IOException {
        return command(new byte[]{(byte) 0xa3, 0x0a, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0}, 0x1000, null);
    }

    /** SET TARGET PORT GROUPS: {@code group} to {@code state}. */
    Result setTargetPortGroup(int group, int state) throws IOException {
        byte[] list = {0, 0, 0, 0, (byte) state, 0, (byte) (group >>> 8), (byte) group};
        byte[] cdb = {(byte) 0xa4, 0x0a, 0, 0, 0, 0, 0, 0, 0, (byte) list.length, 0, 0};
        return command(cdb, 0, list);
    }

    /**
     * PERSISTENT RESERVE OUT (SPC-4 §6.16) with a basic 24-byte parameter list: {@code action} 0 REGISTER,
     * 1 RESERVE, 2 RELEASE; {@code type} 1 Write Exclusive, 3 Exclusive Access.
     */
    Result persistentReserveOut(int action, int type, long key, long serviceActionKey, boolean aptpl)
            throws IOException {
        byte[] list = new byte[24];
        for (int i = 0; i < 8; i++) {
            list[i] = (byte) (key >>> (56 - 8 * i));
            list[8 + i] = (byte) (serviceActionKey >>> (56 - 8 * i));
        }
        list[20] = (byte) (aptpl ? 1 : 0);
        byte[] cdb = {0x5f, (byte) action, (byte) type, 0, 0, 0, 0, 0, (byte) list.length, 0};
        return command(cdb, 0, list);
    }

    /** PERSISTENT RESERVE IN READ RESERVATION (SPC-4 §6.15.3). */
    Result readReservation() throws IOException {
        return command(new byte[]{0x5e, 1, 0, 0, 0, 0, 0, 0x01, 0, 0}, 0x100, null);
    }

    private Result command(byte[] cdb, int readLength, byte[] data) throws IOException {
        int tag = itt++;
        boolean write = data != null;
        int length = write ? data.length : readLength;
        send(new ScsiCommand(false, true, readLength > 0, write, 1, 0, tag, length, cmdSn++, expStatSn,
                ByteBuffer.wrap(cdb), -1, write ? ByteBuffer.wrap(data) : null));
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        while (true) {
            DecodeResult d = receive();
            if (d instanceof R2t r2t) { // when the target did not take all the data immediately
                int off = r2t.bufferOffset();
                int n = r2t.desiredDataTransferLength();
                send(new DataOut(true, 0, tag, r2t.targetTransferTag(), expStatSn, 0, off,
                        ByteBuffer.wrap(data, off, n)));
            } else if (d instanceof DataIn di) {
                byte[] b = new byte[di.data().remaining()];
                di.data().get(b);
                got.writeBytes(b);
                if (di.statusPresent()) {
                    expStatSn = di.statSn() + 1;
                    return new Result(di.status(), 0, 0, 0, got.toByteArray());
                }
            } else if (d instanceof ScsiResponse r) {
                expStatSn = r.statSn() + 1;
                ByteBuffer s = r.data();
                if (r.status() == CHECK_CONDITION && s != null && s.remaining() >= 2 + 14) {
                    int at = s.position() + 2;
                    return new Result(r.status(), s.get(at + 2) & 0x0F, s.get(at + 12) & 0xFF, s.get(at + 13) & 0xFF,
                            got.toByteArray());
                }
                return new Result(r.status(), 0, 0, 0, got.toByteArray());
            } else if (!(d instanceof Pdu)) {
                throw new IOException("undecodable PDU from the target: " + d);
            } // NOP-In, async messages: ignored (the gateways run without NOP-In pings)
        }
    }

    private void send(Pdu p) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(enc.encodedLength(p));
        enc.encode(p, b);
        out.write(b.array(), 0, b.position());
        out.flush();
    }

    private DecodeResult receive() throws IOException {
        byte[] h = new byte[Bhs.LENGTH];
        in.readFully(h);
        int rest = dec.remainder(ByteBuffer.wrap(h), 0);
        byte[] f = new byte[Bhs.LENGTH + rest];
        System.arraycopy(h, 0, f, 0, h.length);
        in.readFully(f, Bhs.LENGTH, rest);
        return dec.decode(ByteBuffer.wrap(f), 0);
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) { // closing a dead connection
        }
    }
}
