package io.hostwide.scsi.spec;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** One test per CDB layout: sizes, field offsets and encode/decode round trips at the field limits. */
class CdbLayoutTest {

    @Test
    void groupCodesFixLengths() {
        assertThat(CdbGroup.lengthOf(ScsiOpcode.READ_6)).isEqualTo(Cdb6.LENGTH);
        assertThat(CdbGroup.lengthOf(ScsiOpcode.READ_10)).isEqualTo(Cdb10.LENGTH);
        assertThat(CdbGroup.lengthOf(ScsiOpcode.MODE_SENSE_10)).isEqualTo(10);
        assertThat(CdbGroup.lengthOf(ScsiOpcode.READ_16)).isEqualTo(Cdb16.LENGTH);
        assertThat(CdbGroup.lengthOf(ScsiOpcode.READ_12)).isEqualTo(Cdb12.LENGTH);
        assertThat(CdbGroup.lengthOf(ScsiOpcode.VARIABLE_LENGTH)).isZero();
        assertThat(CdbGroup.lengthOf(0xC0)).isZero();
        assertThat(CdbGroup.MAX_CDB_LENGTH).isEqualTo(260);
    }

    @Test
    void cdb6CarriesA21BitLba() {
        byte[] c = Cdb6.encode(new byte[6], ScsiOpcode.READ_6, 0x1F_FFFF, 0, 0);
        assertThat(Cdb6.lba(c)).isEqualTo(0x1F_FFFF);
        assertThat(c[1] & 0xE0).isZero();
        assertThat(Cdb6.transferLength(c)).isZero();
        c = Cdb6.encode(new byte[6], ScsiOpcode.WRITE_6, 0x12345, 255, 0);
        assertThat(Cdb6.lba(c)).isEqualTo(0x12345);
        assertThat(Cdb6.transferLength(c)).isEqualTo(255);
        assertThat(c[Cdb6.CONTROL]).isZero();
    }

    @Test
    void cdb10RoundTripsUnsignedFields() {
        byte[] c = Cdb10.encode(new byte[10], ScsiOpcode.READ_10, Cdb10.FUA | Cdb10.DPO, 0xFFFF_FFFFL, 0xFFFF, 0x1F, 0);
        assertThat(Cdb10.lba(c)).isEqualTo(0xFFFF_FFFFL);
        assertThat(Cdb10.transferLength(c)).isEqualTo(0xFFFF);
        assertThat(c[Cdb10.FLAGS] & 0xFF).isEqualTo(0x18);
        assertThat(c[Cdb10.GROUP]).isEqualTo((byte) 0x1F);
        assertThat(c).hasSize(Cdb10.LENGTH);
    }

    @Test
    void cdb12RoundTrips() {
        byte[] c = Cdb12.encode(new byte[12], ScsiOpcode.READ_12, 0, 0x8000_0000L, 0xFFFF_FFFFL, 3, 0);
        assertThat(Cdb12.lba(c)).isEqualTo(0x8000_0000L);
        assertThat(Cdb12.transferLength(c)).isEqualTo(0xFFFF_FFFFL);
        assertThat(c[Cdb12.GROUP]).isEqualTo((byte) 3);
    }

    @Test
    void cdb16CarriesA64BitLba() {
        byte[] c = Cdb16.encode(new byte[16], ScsiOpcode.READ_16, 0, -1L, 0xFFFF_FFFFL, 0, 0);
        assertThat(Cdb16.lba(c)).isEqualTo(-1L);
        assertThat(Cdb16.transferLength(c)).isEqualTo(0xFFFF_FFFFL);
        c = Cdb16.encode(new byte[16], ScsiOpcode.WRITE_16, 0, 0x0102_0304_0506_0708L, 7, 0, 0);
        assertThat(c[Cdb16.LBA]).isEqualTo((byte) 1);
        assertThat(c[Cdb16.LBA + 7]).isEqualTo((byte) 8);
    }

    @Test
    void cdb32HasServiceActionAndAdditionalLength() {
        byte[] c = Cdb32.encode(new byte[32], ServiceAction.READ_32, 0, 42, 8, 0, 0);
        assertThat(c[0] & 0xFF).isEqualTo(ScsiOpcode.VARIABLE_LENGTH);
        assertThat(Cdb32.serviceAction(c)).isEqualTo(ServiceAction.READ_32);
        assertThat(Cdb32.declaredLength(c)).isEqualTo(Cdb32.LENGTH);
        assertThat(Cdb32.lba(c)).isEqualTo(42);
        assertThat(Cdb32.transferLength(c)).isEqualTo(8);
    }

    @Test
    void bigEndianHelpersAgree() {
        byte[] b = new byte[8];
        BigEndian.put64(b, 0, 0x8877_6655_4433_2211L);
        assertThat(BigEndian.s64(b, 0)).isEqualTo(0x8877_6655_4433_2211L);
        assertThat(BigEndian.u32(b, 0)).isEqualTo(0x8877_6655L);
        assertThat(BigEndian.u24(b, 1)).isEqualTo(0x776655);
        assertThat(BigEndian.u16(b, 6)).isEqualTo(0x2211);
    }
}
