package io.hostwide.iscsi.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ReadSpinTest {
    /** Reports nothing readable for {@code emptyPolls} calls, then one byte. */
    private static class Probe extends InputStream {
        final AtomicInteger polls = new AtomicInteger();
        final int emptyPolls;

        Probe(int emptyPolls) {
            this.emptyPolls = emptyPolls;
        }

        @Override
        public int available() {
            return polls.incrementAndGet() > emptyPolls ? 1 : 0;
        }

        @Override
        public int read() {
            throw new AssertionError("ReadSpin must never read");
        }
    }

    @Test
    void stopsPollingAsSoonAsBytesArrive() throws Exception {
        Probe p = new Probe(5);
        new ReadSpin(60_000_000_000L, 1).await(p); // a minute's budget: returning at all proves it stopped early
        assertThat(p.polls.get()).isEqualTo(6);
    }

    @Test
    void givesUpWhenTheBudgetRunsOut() throws Exception {
        Probe p = new Probe(Integer.MAX_VALUE);
        new ReadSpin(1_000_000, 1).await(p);
        assertThat(p.polls.get()).isGreaterThan(1);
    }

    @Test
    void zeroBudgetNeverPolls() throws Exception {
        Probe p = new Probe(Integer.MAX_VALUE);
        new ReadSpin(0, 1).await(p);
        assertThat(p.polls.get()).isZero();
    }

    @Test
    void readersBeyondTheSpinSlotsBlockAtOnce() throws Exception {
        ReadSpin spin = new ReadSpin(60_000_000_000L, 1);
        Probe holder = new Probe(Integer.MAX_VALUE) {
            @Override
            public int available() {
                int n = polls.incrementAndGet();
                if (n == 2) { // inside the spin loop: the one slot is taken, a second reader must not spin
                    Probe other = new Probe(Integer.MAX_VALUE);
                    try {
                        spin.await(other);
                    } catch (java.io.IOException e) {
                        throw new AssertionError(e);
                    }
                    assertThat(other.polls.get()).isEqualTo(1);
                    return 1;
                }
                return 0;
            }
        };
        spin.await(holder);
        assertThat(holder.polls.get()).isEqualTo(2);
    }
}
