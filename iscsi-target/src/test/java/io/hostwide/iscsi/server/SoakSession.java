package io.hostwide.iscsi.server;

import static io.hostwide.iscsi.server.ServerLoopbackTest.TARGET;
import static io.hostwide.iscsi.server.ServerLoopbackTest.cdb;

import io.hostwide.iscsi.pdu.AsyncMessage;
import io.hostwide.iscsi.pdu.DataIn;
import io.hostwide.iscsi.pdu.DataOut;
import io.hostwide.iscsi.pdu.DecodeResult;
import io.hostwide.iscsi.pdu.LoginResponse;
import io.hostwide.iscsi.pdu.NopIn;
import io.hostwide.iscsi.pdu.NopOut;
import io.hostwide.iscsi.pdu.R2t;
import io.hostwide.iscsi.pdu.ScsiCommand;
import io.hostwide.iscsi.pdu.ScsiResponse;
import io.hostwide.iscsi.spec.Codes;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * One soak-test initiator: a sender thread keeps {@link #DEPTH} stamped READ(10)/WRITE(10) commands in flight over
 * the session's own LBA range and the range all sessions share; a receiver thread answers R2Ts, collects Data-In,
 * completes each command exactly once and checks every block read against {@link WriteHistory}. Optionally the
 * connection is dropped once, in the middle of a write burst, and the session reinstated with the same ISID.
 */
final class SoakSession {
    static final int DEPTH = 32;
    /** Largest Data-Out segment we send: the RFC 7143 §13.12 default, below what the target declares. */
    private static final int SEGMENT = 8192;
    private static final int MAX_BLOCKS = 128;

    private final InetSocketAddress portal;
    private final int index;
    private final WriteHistory history;
    private final BlockLocks locks;
    private final long sharedBlocks;
    private final long ownFirst;
    private final long ownBlocks;
    private final String[] keys;
    private final Random rnd;
    final List<String> errors;
    final AtomicLong completed = new AtomicLong();
    final AtomicLong readsVerified = new AtomicLong();
    final AtomicLong writesAcked = new AtomicLong();
    long issued;
    long lost;
    int drops;

    private final Map<Integer, Cmd> outstanding = new ConcurrentHashMap<>();
    private final Semaphore slots = new Semaphore(DEPTH);
    private volatile TestInitiator conn;
    private volatile int expStatSn;
    private volatile int maxCmdSn;
    private int nextItt = 1;
    /**
     * The ITT of the write {@link #dropInWriteBurst} abandons (never in {@link #outstanding}; 0 before the drop,
     * ITTs start at 1 and never repeat): the target may solicit its data with an R2T before the socket closes.
     */
    private volatile int abandonedItt;
    /** Counted down when the receiver sees the abandoned write's R2T. */
    final CountDownLatch abandonedR2t = new CountDownLatch(1);
    /**
     * Test knob: the drop closes the socket only once the abandoned write's R2T was received, forcing the
     * interleaving a loaded machine produces when the sender is preempted between the command and the close.
     */
    boolean closeAfterAbandonedR2t;

    /** One command in flight. */
    private static final class Cmd {
        final int itt;
        final boolean write;
        final long lba;
        final int blocks;
        final byte[] data;
        final long gen;
        final long[] floors;

        Cmd(int itt, boolean write, long lba, int blocks, byte[] data, long gen, long[] floors) {
            this.itt = itt;
            this.write = write;
            this.lba = lba;
            this.blocks = blocks;
            this.data = data;
            this.gen = gen;
            this.floors = floors;
        }
    }

    SoakSession(InetSocketAddress portal, int index, WriteHistory history, BlockLocks locks, long sharedBlocks,
            long ownFirst, long ownBlocks, List<String> errors, String... keys) {
        this.portal = portal;
        this.index = index;
        this.history = history;
        this.locks = locks;
        this.sharedBlocks = sharedBlocks;
        this.ownFirst = ownFirst;
        this.ownBlocks = ownBlocks;
        this.errors = errors;
        this.keys = keys;
        this.rnd = new Random(index * 7919L);
    }

    /** Runs until {@code deadline} (nanoTime); drops and reinstates the connection at {@code dropAt} if not 0. */
    void run(long deadline, long dropAt) throws Exception {
        run(() -> System.nanoTime() - deadline < 0, () -> dropAt != 0 && System.nanoTime() - dropAt >= 0);
    }

    /**
     * Issues commands while {@code more} holds; drops and reinstates the connection the first time {@code dropNow}
     * holds; then waits for every registered command's answer and closes.
     */
    void run(BooleanSupplier more, BooleanSupplier dropNow) throws Exception {
        Thread receiver = connect();
        boolean dropped = false;
        while (more.getAsBoolean() && errors.isEmpty()) {
            if (!dropped && dropNow.getAsBoolean()) {
                dropped = true;
                receiver = dropInWriteBurst(receiver);
                continue;
            }
            if (!slots.tryAcquire(30, TimeUnit.SECONDS)) {
                fail("no command completed for 30 s with " + outstanding.size() + " outstanding");
                break;
            }
            issue(rnd.nextBoolean());
        }
        if (!slots.tryAcquire(DEPTH, 60, TimeUnit.SECONDS)) { // every command answered before we leave
            fail("commands never completed: " + outstanding.keySet());
        }
        conn.close();
        receiver.join(10_000);
    }

    private Thread connect() throws IOException {
        TestInitiator i = new TestInitiator(portal);
        i.isid = 0x400000000000L | 0x5000 | index;
        LoginResponse r = i.login(TARGET, keys);
        if (r.statusClass() != 0) {
            throw new IOException("login refused: " + r.statusClass() + "/" + r.statusDetail());
        }
        expStatSn = i.expStatSn;
        maxCmdSn = r.maxCmdSn();
        conn = i;
        Thread t = new Thread(() -> receive(i), "soak-rx-" + index);
        t.setDaemon(true);
        t.start();
        clearUnitAttentions();
        return t;
    }

    /** TEST UNIT READY until GOOD: the new nexus reports its power-on / nexus-loss conditions first. */
    private void clearUnitAttentions() throws IOException {
        for (int n = 0; n < 8; n++) {
            try {
                slots.acquire();
            } catch (InterruptedException e) {
                throw new IOException(e);
            }
            Cmd c = new Cmd(nextItt++, false, -1, 0, new byte[0], 0, null);
            outstanding.put(c.itt, c);
            send(c, cdb(0), 0);
            try {
                if (!slots.tryAcquire(DEPTH, 10, TimeUnit.SECONDS)) {
                    throw new IOException("TEST UNIT READY not answered");
                }
            } catch (InterruptedException e) {
                throw new IOException(e);
            }
            boolean good = tuGood;
            slots.release(DEPTH);
            if (good) {
                return;
            }
        }
        throw new IOException("unit attentions did not clear");
    }

    private volatile boolean tuGood;

    private void issue(boolean write) throws IOException {
        boolean shared = rnd.nextInt(4) == 0;
        int blocks = rnd.nextInt(8) == 0 ? MAX_BLOCKS : 1 + rnd.nextInt(32);
        long first = shared ? 0 : ownFirst;
        long span = shared ? sharedBlocks : ownBlocks;
        while (true) { // another command in flight overlaps with a write involved: pick another range
            long lba = first + rnd.nextLong(span - blocks + 1);
            if (locks.tryLock(lba, blocks, write)) {
                issueAt(write, lba, blocks);
                return;
            }
            Thread.yield();
        }
    }

    /**
     * After the soak: reads every block of {@code [from, from + count)} once, on a fresh session, and checks each
     * against every write acknowledged before (no acknowledged write lost).
     */
    void readBack(long from, long count) throws Exception { // built without locks: nothing else runs now
        Thread receiver = connect();
        for (long lba = from; lba < from + count && errors.isEmpty(); lba += MAX_BLOCKS) {
            if (!slots.tryAcquire(30, TimeUnit.SECONDS)) {
                fail("read-back stalled");
                break;
            }
            issueAt(false, lba, (int) Math.min(MAX_BLOCKS, from + count - lba));
        }
        if (!slots.tryAcquire(DEPTH, 60, TimeUnit.SECONDS)) {
            fail("read-back never completed: " + outstanding.keySet());
        }
        conn.close();
        receiver.join(10_000);
    }

    private void issueAt(boolean write, long lba, int blocks) throws IOException {
        Cmd c;
        if (write) {
            long gen = history.newWrite();
            byte[] data = new byte[blocks * WriteHistory.BLOCK];
            for (int b = 0; b < blocks; b++) {
                BlockStamp.stamp(data, b * WriteHistory.BLOCK, lba + b, index, gen);
            }
            c = new Cmd(nextItt++, true, lba, blocks, data, gen, null);
        } else {
            long[] floors = new long[blocks];
            history.floors(lba, blocks, floors);
            c = new Cmd(nextItt++, false, lba, blocks, new byte[blocks * WriteHistory.BLOCK], 0, floors);
            history.tick(); // the read is sent after its floors were read
        }
        outstanding.put(c.itt, c);
        issued++;
        int op = write ? 0x2a : 0x28;
        send(c, cdb(op, 0, (int) (lba >>> 24), (int) (lba >>> 16 & 0xff), (int) (lba >>> 8 & 0xff),
                (int) (lba & 0xff), 0, blocks >>> 8, blocks & 0xff, 0), c.data.length);
    }

    /** Sends the command with as much immediate and unsolicited data as the session allows (RFC 7143 §3.2.4.2). */
    private void send(Cmd c, ByteBuffer cdb, int length) throws IOException {
        TestInitiator i = conn;
        waitForWindow(i);
        boolean immediateData = has("ImmediateData=Yes");
        boolean unsolicited = !has("InitialR2T=Yes");
        int immediate = c.write && immediateData ? Math.min(SEGMENT, length) : 0;
        int firstBurst = c.write && unsolicited ? Math.min(65536, length) : immediate;
        synchronized (i) {
            i.send(new ScsiCommand(false, firstBurst == immediate, !c.write && length > 0, c.write, 1, 0, c.itt,
                    length, i.cmdSn++, expStatSn, cdb, -1, immediate == 0 ? null
                    : ByteBuffer.wrap(c.data, 0, immediate)));
            sendData(i, c, Codes.RESERVED_TAG, immediate, firstBurst - immediate);
        }
    }

    private void waitForWindow(TestInitiator i) throws IOException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (i.cmdSn - maxCmdSn > 0) { // RFC 7143 §3.2.2.1: never beyond MaxCmdSN
            if (System.nanoTime() > until) {
                throw new IOException("CmdSN window stayed closed");
            }
            java.util.concurrent.locks.LockSupport.parkNanos(20_000); // rare: do not spin 32 senders on 2 cores
        }
    }

    private boolean has(String key) {
        for (String k : keys) {
            if (k.equals(key)) {
                return true;
            }
        }
        return false;
    }

    /** Data-Out for {@code [from, from + length)} in segments, DataSN from 0, F on the last (RFC 7143 §11.7). */
    private void sendData(TestInitiator i, Cmd c, int ttt, int from, int length) throws IOException {
        int sn = 0;
        for (int off = from; off < from + length; off += SEGMENT) {
            int n = Math.min(SEGMENT, from + length - off);
            i.send(new DataOut(off + n == from + length, 0, c.itt, ttt, expStatSn, sn++, off,
                    ByteBuffer.wrap(c.data, off, n)));
        }
    }

    private void receive(TestInitiator i) {
        try {
            while (true) {
                DecodeResult d = i.receive();
                switch (d) {
                    case DataIn in -> dataIn(in);
                    case ScsiResponse r -> response(r);
                    case R2t r -> r2t(i, r);
                    case NopIn n -> nopIn(i, n);
                    case AsyncMessage a -> { } // nothing in this test asks for events
                    default -> fail("unexpected " + d);
                }
            }
        } catch (IOException e) {
            // closed by us (drop or end of run), or by the target: outstanding commands are accounted by run()
        }
    }

    private void sn(int statSn, int maxCmd, boolean hasStatSn) {
        if (hasStatSn) {
            expStatSn = statSn + 1;
        }
        maxCmdSn = maxCmd;
    }

    private void dataIn(DataIn in) {
        sn(in.statSn(), in.maxCmdSn(), in.statusPresent());
        Cmd c = outstanding.get(in.initiatorTaskTag());
        if (c == null || c.write) {
            fail("Data-In for a task not outstanding as a read: itt " + in.initiatorTaskTag());
            return;
        }
        in.data().get(in.data().position(), c.data, in.bufferOffset(), in.data().remaining());
        if (in.statusPresent()) {
            complete(c, in.status());
        }
    }

    private void response(ScsiResponse r) {
        sn(r.statSn(), r.maxCmdSn(), true);
        Cmd c = outstanding.get(r.initiatorTaskTag());
        if (c == null) {
            fail("response for a task not outstanding (completed twice?): itt " + r.initiatorTaskTag());
            return;
        }
        if (r.response() != 0) {
            fail("iSCSI response " + r.response() + " for itt " + c.itt);
        }
        int status = r.status();
        if (status == 2 && senseKey(r) == 6 && c.lba >= 0) {
            status = -2; // unit attention: the command did not run
        } else if (status == 2 && c.lba >= 0) {
            fail("CHECK CONDITION sense key " + senseKey(r) + " for itt " + c.itt);
        }
        complete(c, status);
    }

    private static int senseKey(ScsiResponse r) {
        ByteBuffer d = r.data();
        return d.remaining() > 4 ? d.get(d.position() + 4) & 0x0f : -1;
    }

    private void complete(Cmd c, int status) {
        if (outstanding.remove(c.itt) != c) {
            fail("itt " + c.itt + " completed twice");
            return;
        }
        if (c.lba < 0) {
            tuGood = status == 0;
        } else if (status == 0 && c.write) {
            history.acknowledged(c.gen, c.lba, c.blocks);
            writesAcked.incrementAndGet();
        } else if (status == 0) {
            verify(c);
        } else if (status != -2) {
            fail("status " + status + " for itt " + c.itt);
        }
        if (c.lba >= 0) {
            completed.incrementAndGet();
            if (locks != null) {
                locks.unlock(c.lba, c.blocks, c.write);
            }
        }
        slots.release();
    }

    private void verify(Cmd c) {
        for (int b = 0; b < c.blocks; b++) {
            String wrong = history.check(c.data, b * WriteHistory.BLOCK, c.lba + b, c.floors[b]);
            if (wrong != null) {
                fail("session " + index + " itt " + c.itt + ": " + wrong);
                return;
            }
        }
        readsVerified.incrementAndGet();
    }

    private void r2t(TestInitiator i, R2t r) {
        maxCmdSn = r.maxCmdSn();
        if (r.initiatorTaskTag() == abandonedItt) { // legal: it waits for data we never send; the drop ends it
            abandonedR2t.countDown();
            return;
        }
        Cmd c = outstanding.get(r.initiatorTaskTag());
        if (c == null || !c.write) {
            fail("R2T for a task not outstanding as a write: itt " + r.initiatorTaskTag());
            return;
        }
        try {
            synchronized (i) {
                sendData(i, c, r.targetTransferTag(), r.bufferOffset(), r.desiredDataTransferLength());
            }
        } catch (IOException e) {
            // the connection is going away; run() accounts for the command
        }
    }

    private void nopIn(TestInitiator i, NopIn n) {
        sn(n.statSn(), n.maxCmdSn(), false);
        if (n.targetTransferTag() == Codes.RESERVED_TAG) {
            return;
        }
        try {
            synchronized (i) { // RFC 7143 §11.18: answer a ping with the same TTT, ITT reserved, CmdSN not advanced
                i.send(new NopOut(true, 0, Codes.RESERVED_TAG, n.targetTransferTag(), i.cmdSn, expStatSn, null));
            }
        } catch (IOException e) {
            // going away
        }
    }

    /**
     * Sends a burst of writes, then one whose data never comes, and closes the socket under them; then logs in
     * again with the same ISID (session reinstatement, RFC 7143 §6.3.5). The dropped commands' fate is unknown to
     * us, so their writes stay unacknowledged in the history; none may complete on the new connection.
     */
    private Thread dropInWriteBurst(Thread receiver) throws Exception {
        for (int n = 0; n < 8 && slots.tryAcquire(); n++) {
            issue(true);
        }
        TestInitiator i = conn;
        while (!locks.tryLock(ownFirst, MAX_BLOCKS, true)) { // held for good: its fate stays unknown
            Thread.yield();
        }
        sendAbandonedWrite(i);
        if (closeAfterAbandonedR2t && !abandonedR2t.await(30, TimeUnit.SECONDS)) {
            fail("session " + index + ": no R2T for the abandoned write, itt " + abandonedItt);
        }
        i.close();
        receiver.join(30_000);
        if (receiver.isAlive()) { // it would still read the old connection while we reuse outstanding and slots
            fail("session " + index + ": receiver of the dropped connection did not stop");
        }
        abandonedItt = 0; // an R2T for it on the new connection would be a task leaked across the reinstatement
        lost += outstanding.size(); // their blocks stay locked: a late landing must not race a new write
        slots.release(outstanding.size());
        outstanding.clear();
        drops++;
        return connect();
    }

    /**
     * A large write, within the CmdSN window (RFC 7143 §3.2.2.1), whose data never comes: with InitialR2T=No it
     * announces unsolicited Data-Out (F = 0) that is never sent; with InitialR2T=Yes it is final and the target
     * solicits the data with an R2T we never answer, and that R2T may arrive before the close. Either way the
     * target holds it waiting for data when the connection drops. Never registered as outstanding: a response
     * for it would be reported as unknown.
     */
    private void sendAbandonedWrite(TestInitiator i) throws IOException {
        waitForWindow(i);
        int itt = nextItt++;
        abandonedItt = itt; // before the send, so the receiver knows it when the R2T comes
        issued++;
        lost++;
        ByteBuffer cdb = cdb(0x2a, 0, (int) (ownFirst >>> 24), (int) (ownFirst >>> 16 & 0xff),
                (int) (ownFirst >>> 8 & 0xff), (int) (ownFirst & 0xff), 0, 0, MAX_BLOCKS, 0);
        synchronized (i) {
            i.send(new ScsiCommand(false, has("InitialR2T=Yes"), false, true, 1, 0, itt,
                    MAX_BLOCKS * WriteHistory.BLOCK, i.cmdSn++, expStatSn, cdb, -1, null));
        }
    }

    private void fail(String what) {
        errors.add(what);
    }

    static List<String> newErrorList() {
        return new CopyOnWriteArrayList<>();
    }
}
