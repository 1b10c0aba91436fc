package io.hostwide.iscsi.spec;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import org.junit.jupiter.api.Test;

class SpecLayoutTest {
    @Test
    void bhsIs48Bytes() { // as SPDK asserts sizeof(struct iscsi_bhs) == 48
        assertThat(Bhs.LENGTH).isEqualTo(48);
    }

    @Test
    void everyOffsetLiesInsideTheBhs() throws IllegalAccessException {
        for (Class<?> c : Bhs.class.getDeclaredClasses()) {
            for (Field f : c.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers()) && f.getType() == int.class && !f.getName().endsWith("LENGTH")) {
                    int off = f.getInt(null);
                    assertThat(off).as(c.getSimpleName() + "." + f.getName()).isBetween(1, 47);
                }
            }
        }
        assertThat(Bhs.ScsiCommand.CDB + Bhs.ScsiCommand.CDB_LENGTH).isEqualTo(Bhs.LENGTH);
        assertThat(Bhs.ScsiResponse.RESIDUAL_COUNT + 4).isEqualTo(Bhs.LENGTH);
    }

    @Test
    void opcodesRoundTripAndSplitByDirection() {
        for (Opcode o : Opcode.values()) {
            assertThat(Opcode.of(o.code)).isSameAs(o);
            assertThat(o.fromInitiator()).isEqualTo(o.code < 0x20);
        }
        assertThat(Opcode.of(0x1c)).isNull(); // vendor specific, RFC 7143 §11.2.1.2
        assertThat(Opcode.values()).hasSize(18);
    }

    @Test
    void rejectReasonsAndLoginStatusesHaveRfcCodes() {
        assertThat(RejectReason.of(0x02)).isEqualTo(RejectReason.DATA_DIGEST_ERROR);
        assertThat(RejectReason.of(0x09)).isEqualTo(RejectReason.INVALID_PDU_FIELD);
        assertThat(RejectReason.of(0x01)).isNull();
        assertThat(LoginStatus.AUTHENTICATION_FAILURE.statusClass).isEqualTo(2);
        assertThat(LoginStatus.AUTHENTICATION_FAILURE.statusDetail).isEqualTo(1);
        assertThat(LoginStatus.MISSING_PARAMETER.statusDetail).isEqualTo(7);
        assertThat(LoginStatus.OUT_OF_RESOURCES.statusClass).isEqualTo(3);
    }
}
