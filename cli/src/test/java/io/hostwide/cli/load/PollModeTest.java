package io.hostwide.cli.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PollModeTest {

    @Test
    void autoPollsUpTo64KiBAndWaitsAbove() {
        assertThat(PollMode.AUTO.polls(512, 32)).isTrue();
        assertThat(PollMode.AUTO.polls(4096, 16)).isTrue();
        assertThat(PollMode.AUTO.polls(64 * 1024, 64)).isTrue();
        assertThat(PollMode.AUTO.polls(64 * 1024 + 512, 2)).isFalse();
        assertThat(PollMode.AUTO.polls(1 << 20, 16)).isFalse();
    }

    @Test
    void autoPollsEverySizeAtQueueDepth1() {
        for (int bs : new int[] {512, 4096, 1 << 20, 64 << 20}) {
            assertThat(PollMode.AUTO.polls(bs, 1)).as("bs %d", bs).isTrue();
        }
    }

    @Test
    void onAndOffIgnoreTheSize() {
        for (int bs : new int[] {512, 4096, 1 << 20, 64 << 20}) {
            for (int qd : new int[] {1, 16}) {
                assertThat(PollMode.ON.polls(bs, qd)).isTrue();
                assertThat(PollMode.OFF.polls(bs, qd)).isFalse();
            }
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
