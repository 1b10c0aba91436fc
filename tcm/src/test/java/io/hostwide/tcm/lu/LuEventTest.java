package io.hostwide.tcm.lu;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link LuEvent}'s text: what one gateway writes the others read back, anything else is refused with a reason. */
class LuEventTest {

    @Test
    void roundTripsEachKindAndAnyGatewayName() throws Exception {
        for (LuEvent e : new LuEvent[] {new LuEvent("gw-a", LuEvent.Kind.RESET, 0x2903),
                new LuEvent("host 1:4242/ü", LuEvent.Kind.RELEASE, 0xFFFF)}) {
            byte[] b = e.encode();
            assertThat(LuEvent.is(b)).isTrue();
            assertThat(LuEvent.decode(b)).isEqualTo(e);
        }
    }

    @Test
    void aReservationNotifyIsNoEvent() {
        byte[] notify = SharedPrDocument.encodeNotify("gw-a", 7, java.util.List.of());
        assertThat(LuEvent.is(notify)).isFalse();
        assertThat(LuEvent.is(new byte[0])).isFalse();
        assertThat(LuEvent.is(LuEvent.MAGIC.getBytes(StandardCharsets.US_ASCII))).isFalse();
    }

    @Test
    void malformedEventsAreRefusedWithTheReason() {
        for (String bad : new String[] {
                LuEvent.MAGIC + "\norigin gw-a\n",
                LuEvent.MAGIC + "\norigin gw-a\nevent FORMAT 1\n",
                LuEvent.MAGIC + "\norigin gw-a\nevent RESET zz\n",
                LuEvent.MAGIC + "\norigin \nevent RESET 1\n",
                LuEvent.MAGIC + "\norigin %zz\nevent RESET 1\n",
                LuEvent.MAGIC + "\nevent RESET 1\norigin gw-a\n"}) {
            assertThatThrownBy(() -> LuEvent.decode(bad.getBytes(StandardCharsets.UTF_8)))
                    .as(bad).isInstanceOf(SharedPrDocument.MalformedException.class);
        }
    }
}
