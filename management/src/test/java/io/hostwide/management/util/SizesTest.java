package io.hostwide.management.util;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SizesTest {

    @Test
    void parsesBinarySuffixes() {
        assertThat(Sizes.parseBytes("--bs", "512")).isEqualTo(512);
        assertThat(Sizes.parseBytes("--bs", "4k")).isEqualTo(4096);
        assertThat(Sizes.parseBytes("--bs", "4KiB")).isEqualTo(4096);
        assertThat(Sizes.parseBytes("--size", "1g")).isEqualTo(1L << 30);
        assertThat(Sizes.parseBytes("--size", "2T")).isEqualTo(2L << 40);
    }

    @Test
    void badSizesNameTheOption() {
        assertThatThrownBy(() -> Sizes.parseBytes("--bs", "four")).hasMessageStartingWith("--bs: 'four'");
        assertThatThrownBy(() -> Sizes.parseBytes("--bs", "4q")).hasMessageStartingWith("--bs: unknown unit 'q'");
        assertThatThrownBy(() -> Sizes.parseBytes("--size", "99999999999999999999")).hasMessageContaining("too large");
        assertThatThrownBy(() -> Sizes.parseBytes("--size", "9000000000000t")).hasMessageContaining("too large");
    }

    @Test
    void parsesDurations() {
        assertThat(Sizes.parseNanos("--runtime", "10")).isEqualTo(10_000_000_000L);
        assertThat(Sizes.parseNanos("--runtime", "500ms")).isEqualTo(500_000_000L);
        assertThat(Sizes.parseNanos("--runtime", "2m")).isEqualTo(120_000_000_000L);
        assertThat(Sizes.parseNanos("--runtime", "1.5s")).isEqualTo(1_500_000_000L);
        assertThatThrownBy(() -> Sizes.parseNanos("--runtime", "soon")).hasMessageStartingWith("--runtime:");
        assertThatThrownBy(() -> Sizes.parseNanos("--runtime", "3 weeks")).hasMessageStartingWith("--runtime:");
    }
}
