package io.hostwide.cli.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PollModeTest {

    @Test
    void autoPollsUpTo64KiBAndWaitsAbove() {
        assertThat(PollMode.AUTO.polls(512)).isTrue();
        assertThat(PollMode.AUTO.polls(4096)).isTrue();
        assertThat(PollMode.AUTO.polls(64 * 1024)).isTrue();
        assertThat(PollMode.AUTO.polls(64 * 1024 + 512)).isFalse();
        assertThat(PollMode.AUTO.polls(1 << 20)).isFalse();
    }

    @Test
    void onAndOffIgnoreTheSize() {
        for (int bs : new int[] {512, 4096, 1 << 20, 64 << 20}) {
            assertThat(PollMode.ON.polls(bs)).isTrue();
            assertThat(PollMode.OFF.polls(bs)).isFalse();
        }
    }

    @Test
    void parsesItsSpellingsAndNamesTheOptionOtherwise() {
        assertThat(PollMode.parse("on")).isEqualTo(PollMode.ON);
        assertThat(PollMode.parse(" OFF ")).isEqualTo(PollMode.OFF);
        assertThat(PollMode.parse("Auto")).isEqualTo(PollMode.AUTO);
        assertThat(PollMode.parse("never")).isEqualTo(PollMode.OFF);
        assertThatThrownBy(() -> PollMode.parse("sometimes")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--poll: unknown value 'sometimes' (expected on, off or auto)");
    }
}
