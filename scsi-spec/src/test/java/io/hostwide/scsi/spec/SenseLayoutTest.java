package io.hostwide.scsi.spec;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Fixed (18 bytes) and descriptor sense layouts, and the field pointer encoding. */
class SenseLayoutTest {

    @Test
    void fixedSenseIs18BytesWithFieldPointer() {
        byte[] s = new byte[252];
        int sks = SenseData.fieldPointer(true, 2, 7);
        int n = FixedSense.encode(s, SenseKey.ILLEGAL_REQUEST, Asc.INVALID_FIELD_IN_CDB, false, 0, sks);
        assertThat(n).isEqualTo(FixedSense.LENGTH).isEqualTo(18);
        assertThat(s[0] & 0xFF).isEqualTo(0x70);
        assertThat(s[7]).isEqualTo((byte) 10);
        assertThat(SenseData.senseKey(s)).isEqualTo(SenseKey.ILLEGAL_REQUEST);
        assertThat(SenseData.ascAscq(s)).isEqualTo(Asc.INVALID_FIELD_IN_CDB);
        assertThat(s[15] & 0xFF).isEqualTo(0x80 | 0x40 | 0x08 | 7); // SKSV C/D BPV bit 7
        assertThat(BigEndian.u16(s, 16)).isEqualTo(2);
        assertThat(SenseData.senseKeySpecific(s, n)).isEqualTo(sks);
        assertThat(SenseData.information(s, n)).isEqualTo(-1);
    }

    @Test
    void fixedSenseInformationSetsValid() {
        byte[] s = new byte[18];
        FixedSense.encode(s, SenseKey.MISCOMPARE, Asc.MISCOMPARE_DURING_VERIFY_OPERATION, true, 511, -1);
        assertThat(s[0] & 0xFF).isEqualTo(0xF0);
        assertThat(SenseData.information(s, 18)).isEqualTo(511);
        assertThat(SenseData.senseKeySpecific(s, 18)).isEqualTo(-1);
    }

    @Test
    void descriptorSenseCarriesInformationAndSksDescriptors() {
        byte[] s = new byte[252];
        int n = DescriptorSense.encode(s, SenseKey.MISCOMPARE, Asc.MISCOMPARE_DURING_VERIFY_OPERATION, true, 1L << 40,
                SenseData.fieldPointer(false, 300, -1));
        assertThat(n).isEqualTo(8 + 12 + 8);
        assertThat(s[0] & 0xFF).isEqualTo(0x72);
        assertThat(s[7]).isEqualTo((byte) (n - 8));
        assertThat(SenseData.isDescriptorFormat(s)).isTrue();
        assertThat(SenseData.senseKey(s)).isEqualTo(SenseKey.MISCOMPARE);
        assertThat(SenseData.ascAscq(s)).isEqualTo(Asc.MISCOMPARE_DURING_VERIFY_OPERATION);
        assertThat(SenseData.information(s, n)).isEqualTo(1L << 40);
        assertThat(SenseData.senseKeySpecific(s, n)).isEqualTo(SenseData.SKSV | 300);
        assertThat(DescriptorSense.encode(s, 0, 0, false, 0, -1)).isEqualTo(DescriptorSense.HEADER_LENGTH);
    }

    @Test
    void ascSplitsAndJoins() {
        assertThat(Asc.asc(Asc.MEDIUM_REMOVAL_PREVENTED)).isEqualTo(0x53);
        assertThat(Asc.ascq(Asc.MEDIUM_REMOVAL_PREVENTED)).isEqualTo(0x02);
        assertThat(Asc.of(0x3F, 0x0E)).isEqualTo(Asc.REPORTED_LUNS_DATA_HAS_CHANGED);
    }

    /** An LBA past 2^32 (a LUN over 2 TiB of 512-byte blocks) does not fit: VALID clear, never a truncated LBA. */
    @Test
    void fixedSenseLeavesOutAnInformationValueWiderThan32Bits() {
        byte[] s = new byte[FixedSense.LENGTH];
        FixedSense.encode(s, SenseKey.DATA_PROTECT, Asc.SPACE_ALLOCATION_FAILED_WRITE_PROTECT, true, 1L << 33, -1);
        assertThat(s[0] & FixedSense.VALID).isZero();
        assertThat(SenseData.information(s, s.length)).isEqualTo(-1);
        FixedSense.encode(s, SenseKey.DATA_PROTECT, Asc.SPACE_ALLOCATION_FAILED_WRITE_PROTECT, true, 0xFFFF_FFFFL, -1);
        assertThat(SenseData.information(s, s.length)).isEqualTo(0xFFFF_FFFFL);
        assertThat(s[12]).isEqualTo((byte) 0x27);
        assertThat(s[13]).isEqualTo((byte) 0x07);
    }
}
