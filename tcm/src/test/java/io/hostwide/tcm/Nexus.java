package io.hostwide.tcm;

import io.hostwide.scsi.spec.BigEndian;
import io.hostwide.scsi.spec.LunAddress;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.scsi.spec.TaskAttribute;
import io.hostwide.tcm.core.Session;
import io.hostwide.tcm.spi.TargetCommand;

/**
 * One I_T nexus of a {@link Harness} for reservation, ALUA and task management tests: raw CDBs in, results out,
 * plus builders for the PERSISTENT RESERVE IN/OUT CDBs and parameter lists (SPC-4 §6.15-6.16).
 */
final class Nexus {
    final Harness h;
    final Session session;

    Nexus(Harness h, Session session) {
        this.h = h;
        this.session = session;
    }

    static Nexus first(Harness h) { return new Nexus(h, h.session); }

    static Nexus open(Harness h, String initiator) { return new Nexus(h, h.newSession(initiator)); }

    TestFabric.Result in(byte[] cdb, int expected) {
        return h.fabric.run(session, LunAddress.encode(0), cdb, expected, TargetCommand.DIR_READ, null);
    }

    TestFabric.Result out(byte[] cdb, byte[] data) {
        return h.fabric.run(session, LunAddress.encode(0), cdb, data.length, TargetCommand.DIR_WRITE, data);
    }

    TestFabric.Result none(byte[] cdb) {
        return h.fabric.run(session, LunAddress.encode(0), cdb, 0, TargetCommand.DIR_NONE, null);
    }

    TestFabric.Result none(byte[] cdb, TaskAttribute attr) {
        return h.fabric.run(session, LunAddress.encode(0), cdb, attr, 0, TargetCommand.DIR_NONE, null);
    }

    /** TEST UNIT READY until GOOD; returns the unit attentions (ASC/ASCQ) it consumed, in order. */
    java.util.List<Integer> drainUnitAttentions() {
        java.util.List<Integer> uas = new java.util.ArrayList<>();
        for (int i = 0; i < 20; i++) {
            TestFabric.Result r = none(Harness.cdb(0, 0, 0, 0, 0, 0));
            if (r.status() == ScsiStatus.GOOD || r.senseKey() != 6) {
                return uas;
            }
            uas.add(r.ascAscq());
        }
        throw new AssertionError("unit attentions never end");
    }

    // --- PERSISTENT RESERVE OUT / IN -----------------------------------------------------------------------------

    static byte[] proutCdb(int sa, int type, int length) {
        byte[] c = new byte[10];
        c[0] = 0x5F;
        c[1] = (byte) sa;
        c[2] = (byte) type;
        BigEndian.put32(c, 5, length);
        return c;
    }

    static byte[] basic(long key, long saKey, int flags) {
        byte[] d = new byte[24];
        BigEndian.put64(d, 0, key);
        BigEndian.put64(d, 8, saKey);
        d[20] = (byte) flags;
        return d;
    }

    TestFabric.Result prout(int sa, int type, long key, long saKey, int flags) {
        return out(proutCdb(sa, type, 24), basic(key, saKey, flags));
    }

    TestFabric.Result register(long key, long saKey) { return prout(0, 0, key, saKey, 0); }

    TestFabric.Result registerIgnore(long saKey) { return prout(6, 0, 0, saKey, 0); }

    TestFabric.Result reserve(long key, int type) { return prout(1, type, key, 0, 0); }

    TestFabric.Result release(long key, int type) { return prout(2, type, key, 0, 0); }

    TestFabric.Result clear(long key) { return prout(3, 0, key, 0, 0); }

    TestFabric.Result preempt(long key, long saKey, int type) { return prout(4, type, key, saKey, 0); }

    static byte[] prinCdb(int sa, int alloc) {
        byte[] c = new byte[10];
        c[0] = 0x5E;
        c[1] = (byte) sa;
        BigEndian.put16(c, 7, alloc);
        return c;
    }

    TestFabric.Result prin(int sa) { return in(prinCdb(sa, 8192), 8192); }

    /** READ KEYS: the registered keys. */
    long[] keys() {
        byte[] d = ok(prin(0)).data();
        int n = (int) BigEndian.u32(d, 4) / 8;
        long[] k = new long[n];
        for (int i = 0; i < n; i++) {
            k[i] = BigEndian.s64(d, 8 + 8 * i);
        }
        return k;
    }

    int generation() { return (int) BigEndian.u32(ok(prin(0)).data(), 0); }

    /** READ RESERVATION: {key, type} or null when not reserved. */
    long[] reservation() {
        byte[] d = ok(prin(1)).data();
        if (BigEndian.u32(d, 4) == 0) {
            return null;
        }
        return new long[] {BigEndian.s64(d, 8), d[21] & 0x0F};
    }

    static TestFabric.Result ok(TestFabric.Result r) {
        if (r.status() != ScsiStatus.GOOD) {
            throw new AssertionError("expected GOOD: " + r);
        }
        return r;
    }
}
