package io.hostwide.scsi.sd;

import io.hostwide.scsi.spec.BigEndian;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** CDB bytes of the disk driver: 10 vs 16 at the 32-bit LBA and 16-bit length boundaries (SBC-4 §5.19, §5.39). */
class SdCdbTest {

    @Test
    void read10UpToTheLast32BitLbaThen16() {
        byte[] c = new byte[16];
        assertThat(SdCdb.readWrite(c, false, 0xFFFF_FFFFL, 1, false, false)).isEqualTo(10);
        assertThat(c[0] & 0xFF).isEqualTo(0x28);
        assertThat(BigEndian.u32(c, 2)).isEqualTo(0xFFFF_FFFFL);
        assertThat(BigEndian.u16(c, 7)).isEqualTo(1);
        assertThat(SdCdb.readWrite(c, false, 0xFFFF_FFFFL, 2, false, false)).as("last block beyond 2^32 - 1").isEqualTo(16);
        assertThat(c[0] & 0xFF).isEqualTo(0x88);
        assertThat(BigEndian.s64(c, 2)).isEqualTo(0xFFFF_FFFFL);
        assertThat(BigEndian.u32(c, 10)).isEqualTo(2);
        assertThat(SdCdb.readWrite(c, false, 1L << 40, 8, false, false)).isEqualTo(16);
        assertThat(BigEndian.s64(c, 2)).isEqualTo(1L << 40);
    }

    @Test
    void write10UpTo0xFFFFBlocksThen16AndFua() {
        byte[] c = new byte[16];
        assertThat(SdCdb.readWrite(c, true, 0, 0xFFFF, true, false)).isEqualTo(10);
        assertThat(c[0] & 0xFF).isEqualTo(0x2A);
        assertThat(c[1] & 0xFF).isEqualTo(SdCdb.FUA);
        assertThat(SdCdb.readWrite(c, true, 0, 0x10000, false, false)).isEqualTo(16);
        assertThat(c[0] & 0xFF).isEqualTo(0x8A);
        assertThat(c[1]).isZero();
        assertThat(SdCdb.readWrite(c, true, 5, 1, false, true)).as("forced 16").isEqualTo(16);
    }

    @Test
    void flushUnmapAndWriteSame() {
        byte[] c = new byte[16];
        assertThat(SdCdb.synchronizeCache(c, false)).isEqualTo(10);
        assertThat(c[0] & 0xFF).isEqualTo(0x35);
        assertThat(SdCdb.synchronizeCache(c, true)).isEqualTo(16);
        assertThat(c[0] & 0xFF).isEqualTo(0x91);
        assertThat(SdCdb.unmap(c, 24)).isEqualTo(10);
        assertThat(c[0] & 0xFF).isEqualTo(0x42);
        assertThat(BigEndian.u16(c, 7)).isEqualTo(24);
        byte[] p = new byte[24];
        SdCdb.unmapParameters(p, 0x1_0000_0000L, 77);
        assertThat(BigEndian.u16(p, 0)).isEqualTo(22);
        assertThat(BigEndian.u16(p, 2)).isEqualTo(16);
        assertThat(BigEndian.s64(p, 8)).isEqualTo(0x1_0000_0000L);
        assertThat(BigEndian.u32(p, 16)).isEqualTo(77);
        assertThat(SdCdb.writeSameUnmap(c, 9, 100)).isEqualTo(16);
        assertThat(c[0] & 0xFF).isEqualTo(0x93);
        assertThat(c[1] & 0xFF).isEqualTo(SdCdb.WS_UNMAP);
        assertThat(BigEndian.u32(c, 10)).isEqualTo(100);
    }

    @Test
    void diskNamesFollowSd() {
        assertThat(ScsiDisk.diskName(0)).isEqualTo("sda");
        assertThat(ScsiDisk.diskName(25)).isEqualTo("sdz");
        assertThat(ScsiDisk.diskName(26)).isEqualTo("sdaa");
        assertThat(ScsiDisk.diskName(27)).isEqualTo("sdab");
    }
}
