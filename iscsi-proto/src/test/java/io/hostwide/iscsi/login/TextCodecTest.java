package io.hostwide.iscsi.login;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class TextCodecTest {
    static TextCodec.Parsed parse(String s) {
        return TextCodec.parse(ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void parsesPairsInOrderWithEmptyValuesAndTrailingPadding() {
        TextCodec.Parsed p = parse("InitiatorName=iqn.a\0SendTargets=\0X-vendor.k=v=w\0\0\0");
        assertThat(p.ok()).isTrue();
        assertThat(p.pairs()).containsExactly(new KeyValue("InitiatorName", "iqn.a"), new KeyValue("SendTargets", ""),
                new KeyValue("X-vendor.k", "v=w"));
    }

    @Test
    void malformedTextIsAnErrorValue() {
        assertThat(parse("novalue\0").ok()).isFalse();
        assertThat(parse("=x\0").ok()).isFalse();
        assertThat(parse("bad key=x\0").ok()).isFalse();
        assertThat(parse("K".repeat(64) + "=x\0").ok()).isFalse();
        assertThat(parse("K".repeat(63) + "=x\0").ok()).isTrue();
        assertThat(parse("K=" + "v".repeat(8193) + "\0").ok()).isFalse();
        byte[] bad = {'K', '=', (byte) 0xc3, 0x28, 0};
        assertThat(TextCodec.parse(ByteBuffer.wrap(bad)).ok()).isFalse();
    }

    @Test
    void encodeThenParseRoundTrips() {
        List<KeyValue> kv = List.of(new KeyValue("TargetAlias", "disk é"), new KeyValue("MaxBurstLength", "262144"));
        assertThat(TextCodec.parse(ByteBuffer.wrap(TextCodec.encode(kv))).pairs()).isEqualTo(kv);
    }

    @Test
    void accumulatorJoinsContinuationsUpToItsBound() {
        TextAccumulator acc = new TextAccumulator();
        assertThat(acc.append(ByteBuffer.wrap("Initiator".getBytes()))).isTrue();
        assertThat(acc.append(ByteBuffer.wrap("Name=iqn.a\0".getBytes()))).isTrue();
        assertThat(TextCodec.parse(acc.take()).pairs()).containsExactly(new KeyValue("InitiatorName", "iqn.a"));
        assertThat(acc.isEmpty()).isTrue();
        assertThat(acc.append(ByteBuffer.allocate(TextAccumulator.MAX_TOTAL))).isTrue();
        assertThat(acc.append(ByteBuffer.allocate(1))).isFalse();
    }

    @Test
    void splitterCutsAtTheSegmentLimit() {
        TextSplitter s = new TextSplitter(new byte[10], 4);
        assertThat(s.next().remaining()).isEqualTo(4);
        assertThat(s.more()).isTrue();
        assertThat(s.next().remaining()).isEqualTo(4);
        assertThat(s.next().remaining()).isEqualTo(2);
        assertThat(s.more()).isFalse();
    }

    @Test
    void chapValuesAreRedactedInToString() {
        assertThat(new KeyValue("CHAP_R", "0x1234").toString()).doesNotContain("1234");
    }
}
