package io.hostwide.scsi.spec;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** SAM-5 LUN structure, VPD and mode page layout sizes, standard INQUIRY offsets. */
class LunAndPageLayoutTest {

    @Test
    void lunAddressingMethods() {
        assertThat(LunAddress.encode(0)).isZero();
        assertThat(LunAddress.encode(5)).isEqualTo(0x0005_0000_0000_0000L);
        assertThat(LunAddress.encode(300)).isEqualTo(0x412C_0000_0000_0000L); // flat space 01b
        for (int lun : new int[] {0, 1, 255, 256, 16383}) {
            assertThat(LunAddress.decode(LunAddress.encode(lun))).isEqualTo(lun);
        }
        assertThat(LunAddress.decode(LunAddress.encodeWellKnown(LunAddress.WLUN_REPORT_LUNS)))
                .isEqualTo(LunAddress.DECODED_WLUN_REPORT_LUNS);
        assertThat(LunAddress.decode(0x0000_0001_0000_0000L)).isEqualTo(LunAddress.UNSUPPORTED); // second level
        assertThat(LunAddress.decode(0x0105_0000_0000_0000L)).isEqualTo(LunAddress.UNSUPPORTED); // bus 1
        assertThat(LunAddress.decode(0xC102_0000_0000_0000L)).isEqualTo(LunAddress.UNSUPPORTED);
    }

    @Test
    void vpdPageSizes() {
        assertThat(VpdPage.BlockLimits.LENGTH).isEqualTo(VpdPage.HEADER_LENGTH + VpdPage.BLOCK_LIMITS_PAGE_LENGTH);
        assertThat(VpdPage.BlockLimits.MAXIMUM_ATOMIC_BOUNDARY_SIZE + 4).isEqualTo(VpdPage.BlockLimits.LENGTH);
        assertThat(VpdPage.LogicalBlockProvisioning.LENGTH)
                .isEqualTo(VpdPage.HEADER_LENGTH + VpdPage.LOGICAL_BLOCK_PROVISIONING_PAGE_LENGTH);
        assertThat(VpdPage.Designator.HEADER_LENGTH).isEqualTo(4);
    }

    @Test
    void modePageSizes() {
        assertThat(ModePage.HEADER6_LENGTH).isEqualTo(4);
        assertThat(ModePage.HEADER10_LENGTH).isEqualTo(8);
        assertThat(ModePage.CONTROL_LENGTH).isEqualTo(12);
        assertThat(ModePage.CACHING_LENGTH).isEqualTo(20);
        assertThat(ModePage.READ_WRITE_ERROR_RECOVERY_LENGTH).isEqualTo(12);
        assertThat(ModePage.INFORMATIONAL_EXCEPTIONS_LENGTH).isEqualTo(12);
        assertThat(ModePage.SHORT_BLOCK_DESCRIPTOR_LENGTH).isEqualTo(8);
        assertThat(ModePage.LONG_BLOCK_DESCRIPTOR_LENGTH).isEqualTo(16);
    }

    @Test
    void standardInquiryOffsets() {
        assertThat(StandardInquiry.VENDOR + StandardInquiry.VENDOR_LENGTH).isEqualTo(StandardInquiry.PRODUCT);
        assertThat(StandardInquiry.PRODUCT + StandardInquiry.PRODUCT_LENGTH).isEqualTo(StandardInquiry.REVISION);
        assertThat(StandardInquiry.REVISION + StandardInquiry.REVISION_LENGTH).isEqualTo(StandardInquiry.MINIMUM_LENGTH);
        assertThat(StandardInquiry.VERSION_DESCRIPTORS + 16).isLessThanOrEqualTo(StandardInquiry.LENGTH_WITH_DESCRIPTORS);
    }

    @Test
    void taskAttributesFromIscsi() {
        assertThat(TaskAttribute.fromIscsiAttr(0)).isEqualTo(TaskAttribute.SIMPLE);
        assertThat(TaskAttribute.fromIscsiAttr(2)).isEqualTo(TaskAttribute.ORDERED);
        assertThat(TaskAttribute.fromIscsiAttr(3)).isEqualTo(TaskAttribute.HEAD_OF_QUEUE);
        assertThat(TaskAttribute.fromIscsiAttr(4)).isEqualTo(TaskAttribute.ACA);
        assertThat(TaskAttribute.fromIscsiAttr(7)).isNull();
    }
}
