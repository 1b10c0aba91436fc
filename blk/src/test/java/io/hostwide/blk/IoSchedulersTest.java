package io.hostwide.blk;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The one scheduler-name check shared by --scheduler and the device specs' scheduler= knobs. */
class IoSchedulersTest {

    @Test
    void requireKnownAcceptsNoneAndRegisteredNamesAndRefusesTheRestListingTheChoices() {
        assertThat(IoSchedulers.requireKnown("none")).isEqualTo("none");
        assertThat(IoSchedulers.requireKnown("mq-deadline")).isEqualTo("mq-deadline");
        for (String bad : new String[] {"bfq", "", "None"}) {
            assertThatThrownBy(() -> IoSchedulers.requireKnown(bad)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("unknown scheduler '" + bad + "' (have: " + IoSchedulers.names() + ")");
        }
        assertThatThrownBy(() -> IoSchedulers.requireKnown(null)).isInstanceOf(IllegalArgumentException.class);
        assertThat(IoSchedulers.names()).startsWith("none ").contains("mq-deadline");
    }
}
