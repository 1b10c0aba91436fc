package io.hostwide.tcm;

import io.hostwide.scsi.spec.Asc;
import io.hostwide.scsi.spec.BigEndian;
import io.hostwide.scsi.spec.LunAddress;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.scsi.spec.SenseData;
import io.hostwide.scsi.spec.SenseKey;
import io.hostwide.tcm.backstore.RamBackstore;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.lu.DeviceAttributes;
import io.hostwide.tcm.spi.TargetCommand;
import org.junit.jupiter.api.Test;

import static io.hostwide.tcm.Harness.cdb;
import static org.assertj.core.api.Assertions.assertThat;

/** EXTENDED COPY (LID1) and RECEIVE COPY RESULTS, following what libiscsi's ExtendedCopy/ReceiveCopyResults check. */
class ExtendedCopyTest {
    static final int BS = Harness.BLOCK;

    static byte[] xcopyCdb(int length) {
        byte[] c = new byte[16];
        c[0] = (byte) 0x83;
        BigEndian.put32(c, 10, length);
        return c;
    }

    static byte[] rcrCdb(int sa, int listId, int alloc) {
        byte[] c = new byte[16];
        c[0] = (byte) 0x84;
        c[1] = (byte) sa;
        c[2] = (byte) listId;
        BigEndian.put32(c, 10, alloc);
        return c;
    }

    /** An E4h target descriptor naming {@code naa} (NAA designator, LU association), block length {@code bs}. */
    static void target(byte[] p, int off, long naa, int bs) {
        p[off] = (byte) 0xE4;
        p[off + 4] = 0x01;     // code set binary
        p[off + 5] = 0x03;     // association LU, type NAA
        p[off + 7] = 8;
        BigEndian.put64(p, off + 8, naa);
        p[off + 29] = (byte) (bs >>> 16);
        BigEndian.put16(p, off + 30, bs);
    }

    static void segment(byte[] p, int off, int src, int dst, int blocks, long srcLba, long dstLba) {
        p[off] = 0x02;
        BigEndian.put16(p, off + 2, 0x18);
        BigEndian.put16(p, off + 4, src);
        BigEndian.put16(p, off + 6, dst);
        BigEndian.put16(p, off + 10, blocks);
        BigEndian.put64(p, off + 12, srcLba);
        BigEndian.put64(p, off + 20, dstLba);
    }

    static byte[] list(int listId, int usage, long[] naas, int[][] segments) {
        int tdl = 32 * naas.length;
        int sdl = 28 * segments.length;
        byte[] p = new byte[16 + tdl + sdl];
        p[0] = (byte) listId;
        p[1] = (byte) (usage << 3);
        BigEndian.put16(p, 2, tdl);
        BigEndian.put32(p, 8, sdl);
        for (int i = 0; i < naas.length; i++) {
            target(p, 16 + 32 * i, naas[i], BS);
        }
        for (int i = 0; i < segments.length; i++) {
            int[] s = segments[i];
            segment(p, 16 + tdl + 28 * i, s[0], s[1], s[2], s[3], s[4]);
        }
        return p;
    }

    // libiscsi ExtendedCopy.Simple
    @Test
    void copiesBlocksWithinOneLu() {
        try (Harness h = new Harness()) {
            byte[] data = Harness.pattern(16 * BS, 3);
            h.out(Harness.write10(0, 16), data);
            byte[] p = list(1, 2, new long[] {h.device.naa()}, new int[][] {{0, 0, 16, 0, 1000}});
            assertThat(h.out(xcopyCdb(p.length), p).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.in(Harness.read10(1000, 16), 16 * BS).data()).isEqualTo(data);
        }
    }

    @Test
    void copiesBetweenTwoLusAndReportsStatus() {
        try (Harness h = new Harness()) {
            Device d2 = h.core.addDevice("dev1", new RamBackstore(Harness.BLOCKS * BS, BS), new DeviceAttributes());
            h.port.addLun(1, d2);
            assertThat(d2.naa()).isNotEqualTo(h.device.naa());
            Nexus.first(h).drainUnitAttentions(); // REPORTED LUNS DATA HAS CHANGED
            byte[] data = Harness.pattern(8 * BS, 5);
            assertThat(h.out(Harness.write10(100, 8), data).status()).isEqualTo(ScsiStatus.GOOD);
            byte[] p = list(7, 0, new long[] {h.device.naa(), d2.naa()},
                    new int[][] {{0, 1, 4, 100, 0}, {0, 1, 4, 104, 4}});
            assertThat(h.out(xcopyCdb(p.length), p).status()).isEqualTo(ScsiStatus.GOOD);
            h.session.lookup(1).unitAttentions().clear();
            TestFabric.Result r = h.fabric.run(h.session, LunAddress.encode(1), Harness.read10(0, 8), 8 * BS,
                    TargetCommand.DIR_READ, null);
            assertThat(r.data()).isEqualTo(data);
            byte[] st = Nexus.ok(h.in(rcrCdb(0, 7, 64), 64)).data();
            assertThat(st).hasSize(12);
            assertThat(BigEndian.u32(st, 0)).isEqualTo(8);
            assertThat(st[4]).as("completed without errors").isEqualTo((byte) 1);
            assertThat(BigEndian.u16(st, 5)).isEqualTo(2);
            assertThat(st[7]).as("bytes").isZero();
            assertThat(BigEndian.u32(st, 8)).isEqualTo(8L * BS);
        }
    }

    // libiscsi ReceiveCopyResults.CopyStatus: unknown list id → INVALID FIELD IN CDB; held after a copy
    @Test
    void copyStatusNeedsAKnownListIdentifier() {
        try (Harness h = new Harness()) {
            assertThat(h.in(rcrCdb(0, 1, 64), 64).ascAscq()).isEqualTo(Asc.INVALID_FIELD_IN_CDB);
            byte[] p = list(1, 0, new long[] {h.device.naa()}, new int[][] {{0, 0, 2, 0, 2046}});
            assertThat(h.out(xcopyCdb(p.length), p).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.in(rcrCdb(0, 1, 64), 64).status()).isEqualTo(ScsiStatus.GOOD);
            // LIST ID USAGE 11b: nothing is held
            byte[] q = list(0, 3, new long[] {h.device.naa()}, new int[][] {{0, 0, 2, 0, 2046}});
            assertThat(h.out(xcopyCdb(q.length), q).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.in(rcrCdb(0, 0, 64), 64).ascAscq()).isEqualTo(Asc.INVALID_FIELD_IN_CDB);
        }
    }

    // libiscsi ReceiveCopyResults.OpParams and the limits ExtendedCopy.DescrLimits derives from them
    @Test
    void operatingParameters() {
        try (Harness h = new Harness()) {
            byte[] d = Nexus.ok(h.in(rcrCdb(3, 0, 256), 256)).data();
            assertThat(d).hasSize(47);
            assertThat(BigEndian.u32(d, 0)).isEqualTo(43);
            assertThat(BigEndian.u16(d, 8)).isEqualTo(16);
            assertThat(BigEndian.u16(d, 10)).isEqualTo(16);
            assertThat(BigEndian.u32(d, 12)).isEqualTo(1024);
            assertThat(BigEndian.u32(d, 16)).isEqualTo(0xFFFFL * BS);
            assertThat(d[37]).isEqualTo((byte) 9);
            assertThat(d[43]).isEqualTo((byte) 3);
            assertThat(new int[] {d[44] & 0xFF, d[45] & 0xFF, d[46] & 0xFF}).containsExactly(0x02, 0x0A, 0xE4);
        }
    }

    // libiscsi ExtendedCopy.DescrLimits
    @Test
    void descriptorLimits() {
        try (Harness h = new Harness()) {
            long[] seventeen = new long[17];
            java.util.Arrays.fill(seventeen, h.device.naa());
            byte[] p = list(1, 0, seventeen, new int[][] {{0, 0, 1, 0, 10}});
            TestFabric.Result r = h.out(xcopyCdb(p.length), p);
            assertThat(r.ascAscq()).isEqualTo(Asc.TOO_MANY_TARGET_DESCRIPTORS);
            int[][] segs = new int[17][];
            java.util.Arrays.fill(segs, new int[] {0, 0, 1, 0, 10});
            p = list(2, 0, new long[] {h.device.naa()}, segs);
            assertThat(h.out(xcopyCdb(p.length), p).ascAscq()).isEqualTo(Asc.TOO_MANY_SEGMENT_DESCRIPTORS);
            segs = new int[18][];
            java.util.Arrays.fill(segs, new int[] {0, 0, 1, 0, 10});
            p = list(3, 0, seventeen, segs); // 544 + 504 bytes of descriptors > 1024
            assertThat(h.out(xcopyCdb(p.length), p).ascAscq()).isEqualTo(Asc.PARAMETER_LIST_LENGTH_ERROR);
        }
    }

    // libiscsi ExtendedCopy.Param and DescrType
    @Test
    void badListsAreRejected() {
        try (Harness h = new Harness()) {
            byte[] before = h.in(Harness.read10(2000, 4), 4 * BS).data();
            byte[] p = list(1, 0, new long[] {h.device.naa()}, new int[][] {{0, 0, 4, 0, 2000}});
            byte[] cut = java.util.Arrays.copyOf(p, 16 + 32 - 1);
            assertThat(h.out(xcopyCdb(cut.length), cut).ascAscq()).isEqualTo(Asc.PARAMETER_LIST_LENGTH_ERROR);
            cut = java.util.Arrays.copyOf(p, p.length - 1);
            assertThat(h.out(xcopyCdb(cut.length), cut).ascAscq()).isEqualTo(Asc.PARAMETER_LIST_LENGTH_ERROR);
            assertThat(h.out(xcopyCdb(0), new byte[0]).status()).as("no parameter data is not an error")
                    .isEqualTo(ScsiStatus.GOOD);
            byte[] e0 = p.clone();
            e0[16] = (byte) 0xE0;
            assertThat(h.out(xcopyCdb(e0.length), e0).ascAscq()).isEqualTo(Asc.UNSUPPORTED_TARGET_DESCRIPTOR_TYPE_CODE);
            byte[] stream = p.clone();
            stream[48] = 0x03;
            assertThat(h.out(xcopyCdb(stream.length), stream).ascAscq())
                    .isEqualTo(Asc.UNSUPPORTED_SEGMENT_DESCRIPTOR_TYPE_CODE);
            byte[] inline = p.clone();
            BigEndian.put32(inline, 12, 4);
            byte[] inlineLong = java.util.Arrays.copyOf(inline, inline.length + 4);
            assertThat(h.out(xcopyCdb(inlineLong.length), inlineLong).ascAscq())
                    .isEqualTo(Asc.INVALID_FIELD_IN_PARAMETER_LIST);
            assertThat(h.in(Harness.read10(2000, 4), 4 * BS).data()).isEqualTo(before);
        }
    }

    // libiscsi ExtendedCopy.ValidateSegDescr / ValidateTgtDescr: COPY ABORTED, nothing copied
    @Test
    void copyAbortedCases() {
        try (Harness h = new Harness()) {
            h.out(Harness.write10(0, 4), Harness.pattern(4 * BS, 1));
            byte[] before = h.in(Harness.read10(2040, 8), 8 * BS).data();
            byte[][] lists = {
                    list(1, 0, new long[] {h.device.naa()}, new int[][] {{0, 1, 4, 0, 2040}}),            // no target 1
                    list(1, 0, new long[] {h.device.naa()}, new int[][] {{0, 0, 4, 0, (int) Harness.BLOCKS - 1}}), // beyond end
                    list(1, 0, new long[] {0x6000_0000_0000_0001L}, new int[][] {{0, 0, 4, 0, 2040}}),    // unknown LU
                    list(1, 0, new long[] {h.device.naa()},
                            new int[][] {{0, 0, 4, 0, 2040}, {0, 0, 4, (int) Harness.BLOCKS, 2044}}),          // 2nd bad
            };
            int[] ascs = {Asc.UNREACHABLE_COPY_TARGET, Asc.NO_ADDITIONAL_SENSE_INFORMATION,
                    Asc.COPY_TARGET_DEVICE_NOT_REACHABLE, Asc.NO_ADDITIONAL_SENSE_INFORMATION};
            for (int i = 0; i < lists.length; i++) {
                TestFabric.Result r = h.out(xcopyCdb(lists[i].length), lists[i]);
                assertThat(r.senseKey()).as("case " + i).isEqualTo(SenseKey.COPY_ABORTED);
                assertThat(r.ascAscq()).as("case " + i).isEqualTo(ascs[i]);
            }
            assertThat(h.in(Harness.read10(2040, 8), 8 * BS).data()).as("a rejected list writes nothing")
                    .isEqualTo(before);
            byte[] st = Nexus.ok(h.in(rcrCdb(0, 1, 64), 64)).data();
            assertThat(st[4]).as("completed with errors").isEqualTo((byte) 2);
            byte[] fsd = Nexus.ok(h.in(rcrCdb(4, 1, 255), 255)).data();
            assertThat(fsd[56]).isEqualTo((byte) ScsiStatus.CHECK_CONDITION);
            int senseLen = BigEndian.u16(fsd, 58);
            assertThat(senseLen).isPositive();
            assertThat(fsd[60 + 2] & 0x0F).isEqualTo(SenseKey.COPY_ABORTED);
        }
    }

    /** SPC-4 §6.4: LU ID TYPE is ignored in SPC-4 (libiscsi ValidateTgtDescr expects GOOD for INQUIRY version 6). */
    @Test
    void luIdTypeIsIgnored() {
        try (Harness h = new Harness()) {
            byte[] p = list(1, 0, new long[] {h.device.naa()}, new int[][] {{0, 0, 2, 0, 2040}});
            p[17] = (byte) 0xC0;
            assertThat(h.out(xcopyCdb(p.length), p).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.in(cdb(0x12, 0, 0, 0, 36, 0), 36).data()[2]).isEqualTo((byte) 6);
        }
    }

    @Test
    void overlappingCopyWithinOneLu() {
        try (Harness h = new Harness()) {
            byte[] data = Harness.pattern(8 * BS, 7);
            h.out(Harness.write10(10, 8), data);
            byte[] p = list(1, 0, new long[] {h.device.naa()}, new int[][] {{0, 0, 8, 10, 13}});
            assertThat(h.out(xcopyCdb(p.length), p).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.in(Harness.read10(13, 8), 8 * BS).data()).isEqualTo(data);
        }
    }

    @Test
    void thirdPartyCopyVpdPage() {
        try (Harness h = new Harness()) {
            byte[] pages = Nexus.ok(h.in(cdb(0x12, 1, 0, 0, 255, 0), 255)).data();
            assertThat(java.util.Arrays.copyOfRange(pages, 4, pages.length)).contains((byte) 0x8F);
            byte[] d = Nexus.ok(h.in(cdb(0x12, 1, 0x8F, 0, 255, 0), 255)).data();
            assertThat(d[1]).isEqualTo((byte) 0x8F);
            assertThat(BigEndian.u16(d, 2)).isEqualTo(d.length - 4);
            assertThat(BigEndian.u16(d, 4)).as("supported commands descriptor").isEqualTo(1);
            assertThat((BigEndian.u16(d, 6) + 4) % 4).isZero();
            assertThat(d[8]).isEqualTo((byte) 8);
            assertThat(java.util.Arrays.copyOfRange(d, 9, 17))
                    .containsExactly(0x83, 1, 0x00, 0x84, 3, 0x00, 0x03, 0x04);
        }
    }

    // libiscsi ExtendedCopy.Large: a 0Ah segment of MAXIMUM SEGMENT LENGTH bytes
    @Test
    void byteCountSegmentOfMaximumLength() {
        try (Harness h = new Harness()) {
            byte[] data = Harness.pattern(64 * BS, 11);
            h.out(Harness.write10(0, 64), data);
            int bytes = 1024 * BS;
            byte[] p = list(1, 2, new long[] {h.device.naa()}, new int[0][]);
            byte[] q = java.util.Arrays.copyOf(p, p.length + 32);
            BigEndian.put32(q, 8, 32);
            int o = p.length;
            q[o] = 0x0A;
            BigEndian.put16(q, o + 2, 0x1C);
            BigEndian.put32(q, o + 8, bytes);
            BigEndian.put64(q, o + 20, 1024);
            assertThat(h.out(xcopyCdb(q.length), q).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.in(Harness.read10(1024, 64), 64 * BS).data()).isEqualTo(data);
            BigEndian.put32(q, o + 8, bytes + 1);
            assertThat(h.out(xcopyCdb(q.length), q).ascAscq()).as("not whole blocks")
                    .isEqualTo(Asc.INVALID_FIELD_IN_PARAMETER_LIST);
            BigEndian.put32(q, o + 8, bytes);
            BigEndian.put16(q, o + 28, 7);
            TestFabric.Result r = h.out(xcopyCdb(q.length), q);
            assertThat(r.ascAscq()).as("byte offsets").isEqualTo(Asc.INVALID_FIELD_IN_PARAMETER_LIST);
            assertThat(r.fieldPointer()).isEqualTo(SenseData.fieldPointer(false, o + 28, 7));
        }
    }

    @Test
    void copyTargetsReservedByAnotherNexusConflict() {
        try (Harness h = new Harness()) {
            Nexus other = Nexus.open(h, "iqn.2026-12.io.hostwide:other");
            other.registerIgnore(9);
            other.reserve(9, 1); // Write Exclusive: the XCOPY itself (WRITE rule) already conflicts at the gate
            byte[] p = list(1, 0, new long[] {h.device.naa()}, new int[][] {{0, 0, 1, 0, 10}});
            assertThat(h.out(xcopyCdb(p.length), p).status()).isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
        }
    }
}
