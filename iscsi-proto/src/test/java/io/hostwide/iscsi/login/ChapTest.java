package io.hostwide.iscsi.login;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** CHAP arithmetic against vectors computed independently (Python hashlib) from RFC 1994 §4.1's definition. */
class ChapTest {
    static byte[] seq(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) i;
        }
        return b;
    }

    @Test
    void md5ResponseIsDigestOfIdentifierSecretChallenge() {
        byte[] r = Chap.response(5, 1, "secretsecret".getBytes(), seq(16));
        assertThat(HexFormat.of().formatHex(r)).isEqualTo("226dc576c33f04ff9c3a200ffe35f442");
    }

    @Test
    void sha256Response() {
        byte[] r = Chap.response(7, 0x2a, "target-secret-2".getBytes(), seq(32));
        assertThat(HexFormat.of().formatHex(r))
                .isEqualTo("4caf0758ac0bc12ecfbad847d7c914a73fe5fc2427eab1e24143185717ab18fb");
    }

    @Test
    void binaryEncodings() { // RFC 7143 §6.1
        assertThat(Chap.decodeBinary("0x0a0B")).containsExactly(0x0a, 0x0b);
        assertThat(Chap.decodeBinary("0xabc")).containsExactly(0x0a, 0xbc);
        assertThat(Chap.decodeBinary("0bAQID")).containsExactly(1, 2, 3);
        assertThat(Chap.decodeBinary("0x")).isNull();
        assertThat(Chap.decodeBinary("0xzz")).isNull();
        assertThat(Chap.decodeBinary("1234")).isNull();
        assertThat(Chap.decodeBinary("0b!!")).isNull();
        assertThat(Chap.encodeHex(new byte[] {1, (byte) 0xff})).isEqualTo("0x01ff");
    }

    @Test
    void secretsNeverPrintAndMutualSecretsMustDiffer() {
        ChapSecret s = ChapSecret.of("user", "very-secret-value");
        assertThat(s.toString()).doesNotContain("very-secret-value").contains("user");
        assertThatThrownBy(() -> new ChapPolicy(s, ChapSecret.of("tgt", "very-secret-value")))
                .hasMessageNotContaining("very-secret-value");
        assertThatThrownBy(() -> new ChapPolicy(null, s)).isInstanceOf(IllegalArgumentException.class);
    }
}
