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
        new ReadSpin(60_000_000_000L, 1, clock(1, -1, 0)).await(p); // a minute's budget: returning at all proves it stopped early
        assertThat(p.polls.get()).isEqualTo(6);
    }

    @Test
    void givesUpWhenTheBudgetRunsOut() throws Exception {
        Probe p = new Probe(Integer.MAX_VALUE);
        new ReadSpin(1_000_000, 1, clock(1_000, -1, 0)).await(p);
        assertThat(p.polls.get()).isEqualTo(1 + 1_000); // the look before polling, then one per microsecond
    }

    @Test
    void zeroBudgetNeverPolls() throws Exception {
        Probe p = new Probe(Integer.MAX_VALUE);
        new ReadSpin(0, 1).await(p);
        assertThat(p.polls.get()).isZero();
    }

    @Test
    void readersBeyondTheSpinSlotsBlockAtOnce() throws Exception {
        ReadSpin spin = new ReadSpin(60_000_000_000L, 1, clock(1, -1, 0));
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

    /** A clock that advances {@code step} nanoseconds per look, and {@code jump} once at look {@code jumpAt}. */
    private static java.util.function.LongSupplier clock(long step, int jumpAt, long jump) {
        long[] t = {0};
        int[] looks = {0};
        return () -> {
            looks[0]++;
            t[0] += step + (looks[0] == jumpAt ? jump : 0);
            return t[0];
        };
    }

    @Test
    void aMissBacksOffAndConsecutiveMissesDoubleTheBackoffUpToTheCap() throws Exception {
        ReadSpin spin = new ReadSpin(10_000, 1, clock(1_000, -1, 0));
        ReadSpin.State s = new ReadSpin.State();
        Probe p = new Probe(Integer.MAX_VALUE);
        spin.await(p, s); // polls, runs out: miss
        assertThat(s.misses).isEqualTo(1);
        int before = p.polls.get();
        spin.await(p, s); // backed off: one look at available(), no polling
        assertThat(p.polls.get()).isEqualTo(before + 1);
        assertThat(s.skip).isZero();
        spin.await(p, s); // polls again, misses again: now two waits block
        assertThat(s.misses).isEqualTo(2);
        assertThat(s.skip).isEqualTo(2);
        for (int i = 0; i < 20; i++) {
            while (s.skip > 0) {
                spin.await(p, s);
            }
            spin.await(p, s);
        }
        assertThat(s.skip).isEqualTo(ReadSpin.MAX_BACKOFF);
    }

    @Test
    void aHitResetsTheBackoffSoAFastInitiatorIsPolledEveryTime() throws Exception {
        ReadSpin spin = new ReadSpin(10_000, 1, clock(1_000, -1, 0));
        ReadSpin.State s = new ReadSpin.State();
        spin.await(new Probe(Integer.MAX_VALUE), s); // miss: backoff grows
        spin.await(new Probe(Integer.MAX_VALUE), s); // skipped
        spin.await(new Probe(3), s);                 // polled: data on the fourth look
        assertThat(s.hits).isEqualTo(1);
        for (int i = 0; i < 5; i++) {
            Probe p = new Probe(2);
            spin.await(p, s);
            assertThat(p.polls.get()).as("wait %d polled", i).isEqualTo(3);
        }
        assertThat(s.hits).isEqualTo(6);
        assertThat(s.skip).isZero();
    }

    @Test
    void aDescheduledPollStopsAtOnceAndBacksOff() throws Exception {
        // looks: 1 = start, 2 = after the first empty poll, 3 = after the second, with a 5 ms gap (preempted)
        ReadSpin spin = new ReadSpin(60_000_000_000L, 1, clock(100, 3, 5_000_000));
        ReadSpin.State s = new ReadSpin.State();
        Probe p = new Probe(Integer.MAX_VALUE);
        spin.await(p, s);
        assertThat(s.preempted).isEqualTo(1);
        assertThat(s.misses).isZero();
        assertThat(p.polls.get()).isEqualTo(3); // the look before the loop, then two polls: stopped at the gap
        assertThat(s.skip).isEqualTo(8);         // as after four misses in a row
    }

    @Test
    void shortGapsAreNotPreemption() throws Exception {
        ReadSpin spin = new ReadSpin(1_000_000, 1, clock(ReadSpin.PREEMPTED_NANOS, -1, 0));
        ReadSpin.State s = new ReadSpin.State();
        spin.await(new Probe(Integer.MAX_VALUE), s);
        assertThat(s.preempted).isZero();
        assertThat(s.misses).isEqualTo(1);
    }
}
