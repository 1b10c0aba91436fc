package io.hostwide.iscsi.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hostwide.iscsi.server.LoginGate.Verdict;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Issue 12 item 2: the cap on connections not yet in the full feature phase, overall and per source address. */
class LoginGateTest {
    private static final long SECOND = 1_000_000_000L;
    private final InetAddress a = address(127, 0, 0, 2);
    private final InetAddress b = address(127, 0, 0, 3);
    private final InetAddress c = address(127, 0, 0, 4);
    private long now = 5 * SECOND;
    private final List<String> logged = new ArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord r) {
            logged.add(r.getMessage());
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };

    @BeforeEach
    void captureLog() {
        LoginGate.LOG.addHandler(capture);
    }

    @AfterEach
    void releaseLog() {
        LoginGate.LOG.removeHandler(capture);
    }

    private LoginGate gate(int total, int perAddress) {
        return new LoginGate(total, perAddress, 10 * SECOND, () -> now);
    }

    @Test
    void oneAddressGetsItsShareAndNoMore() {
        LoginGate g = gate(5, 2);
        assertThat(g.tryEnter(a)).isEqualTo(Verdict.ADMITTED);
        assertThat(g.tryEnter(a)).isEqualTo(Verdict.ADMITTED);
        assertThat(g.tryEnter(a)).isEqualTo(Verdict.OVER_ADDRESS);
        assertThat(g.tryEnter(b)).as("another address still gets in").isEqualTo(Verdict.ADMITTED);
        assertThat(g.pending()).isEqualTo(3);
        assertThat(g.pending(a)).isEqualTo(2);
        assertThat(g.refusedOverAddress()).isEqualTo(1);
        assertThat(g.refusedOverTotal()).isZero();
        g.leave(a);
        assertThat(g.tryEnter(a)).as("a place given back is a place again").isEqualTo(Verdict.ADMITTED);
    }

    @Test
    void theOverallCapHoldsAcrossAddresses() {
        LoginGate g = gate(3, 2);
        g.tryEnter(a);
        g.tryEnter(b);
        g.tryEnter(c);
        assertThat(g.tryEnter(c)).isEqualTo(Verdict.OVER_TOTAL);
        assertThat(g.tryEnter(address(127, 0, 0, 5))).isEqualTo(Verdict.OVER_TOTAL);
        assertThat(g.refusedOverTotal()).isEqualTo(2);
        g.leave(b);
        assertThat(g.tryEnter(address(127, 0, 0, 5))).isEqualTo(Verdict.ADMITTED);
    }

    @Test
    void placesGoBackExactlyAndTheMapEmpties() {
        LoginGate g = gate(4, 4);
        g.tryEnter(a);
        g.tryEnter(a);
        g.leave(a);
        g.leave(a);
        assertThat(g.pending()).isZero();
        assertThat(g.pending(a)).isZero();
        assertThatThrownBy(() -> g.leave(a)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void refusalsAreLoggedAtMostOncePerIntervalWithTheirCount() {
        LoginGate g = gate(2, 1);
        g.tryEnter(a);
        assertThat(g.tryEnter(a)).isEqualTo(Verdict.OVER_ADDRESS);
        assertThat(logged).hasSize(1);
        assertThat(logged.get(0)).contains("refused 1 new connection ")
                .contains("limit of 1 per address is reached by 127.0.0.2").contains("2 overall");
        for (int i = 0; i < 5; i++) {
            now += SECOND;
            g.tryEnter(a); // within 10 s of the first line: counted, not logged
        }
        assertThat(logged).hasSize(1);
        now += 5 * SECOND; // 10 s after the first line
        g.tryEnter(b);
        assertThat(g.tryEnter(c)).isEqualTo(Verdict.OVER_TOTAL);
        assertThat(logged).hasSize(2);
        assertThat(logged.get(1)).contains("refused 6 new connections")
                .contains("limit of 2 connections not yet logged in is reached")
                .contains("7 refused in all");
    }

    @Test
    void limitsMustAdmitSomeone() {
        assertThatThrownBy(() -> gate(0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> gate(1, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    private static InetAddress address(int... bytes) {
        byte[] raw = new byte[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            raw[i] = (byte) bytes[i];
        }
        try {
            return InetAddress.getByAddress(raw);
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }
}
