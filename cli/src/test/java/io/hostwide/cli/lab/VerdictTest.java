package io.hostwide.cli.lab;

import io.hostwide.cli.lab.Medians.Stat;
import io.hostwide.cli.lab.Verdict.Outcome;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** The verdict rule itself: the three outcomes at and around the margin, and how clauses combine. */
class VerdictTest {

    private static Stat s(double v) {
        return Stat.exact(v);
    }

    @Test
    void aDirectionalClauseIsYesBeyondTheMarginNoBeyondItTheOtherWayAndInconclusiveInside() {
        assertThat(Verdict.exceeds("", s(111), s(100), 0.10).outcome()).isEqualTo(Outcome.YES);
        assertThat(Verdict.exceeds("", s(110), s(100), 0.10).outcome()).as("at the margin: noise")
                .isEqualTo(Outcome.INCONCLUSIVE);
        assertThat(Verdict.exceeds("", s(100), s(100), 0.10).outcome()).isEqualTo(Outcome.INCONCLUSIVE);
        assertThat(Verdict.exceeds("", s(91), s(100), 0.10).outcome()).isEqualTo(Outcome.INCONCLUSIVE);
        assertThat(Verdict.exceeds("", s(89), s(100), 0.10).outcome()).isEqualTo(Outcome.NO);
        assertThat(Verdict.exceeds("", s(5), s(0), 0.10).outcome()).as("anything exceeds zero").isEqualTo(Outcome.YES);
        assertThat(Verdict.exceeds("", s(0), s(0), 0.10).outcome()).isEqualTo(Outcome.INCONCLUSIVE);
        assertThat(Verdict.exceeds("", s(0), s(5), 0.10).outcome()).isEqualTo(Outcome.NO);
    }

    @Test
    void aNoDifferenceClauseIsYesInsideTheMarginAndNoBeyondIt() {
        assertThat(Verdict.keepsUpWith("", s(91), s(100), 0.10).outcome()).isEqualTo(Outcome.YES);
        assertThat(Verdict.keepsUpWith("", s(150), s(100), 0.10).outcome()).as("more is fine").isEqualTo(Outcome.YES);
        assertThat(Verdict.keepsUpWith("", s(89), s(100), 0.10).outcome()).isEqualTo(Outcome.NO);
        assertThat(Verdict.alike("", 0.10, s(100), s(95), s(104)).outcome()).as("104/95 < 1.1").isEqualTo(Outcome.YES);
        assertThat(Verdict.alike("", 0.10, s(100), s(95), s(106)).outcome()).as("106/95 > 1.1").isEqualTo(Outcome.NO);
    }

    @Test
    void runsThatDisagreeMoreThanTheStatedMarginWidenIt() {
        // 30% apart, but one side's runs spread over 40% of their median: not decidable.
        assertThat(Verdict.exceeds("", new Stat(130, 0.4), s(100), 0.10).outcome()).isEqualTo(Outcome.INCONCLUSIVE);
        assertThat(Verdict.exceeds("", new Stat(130, 0.2), s(100), 0.10).outcome()).isEqualTo(Outcome.YES);
        assertThat(Verdict.keepsUpWith("", s(75), new Stat(100, 0.3), 0.10).outcome()).isEqualTo(Outcome.YES);
    }

    @Test
    void anyNoMakesTheVerdictNoAndAnyInconclusiveWithoutANoMakesItInconclusive() {
        Verdict.Clause yes = new Verdict.Clause("a", Outcome.YES, "");
        Verdict.Clause no = new Verdict.Clause("b", Outcome.NO, "");
        Verdict.Clause maybe = new Verdict.Clause("c", Outcome.INCONCLUSIVE, "");
        assertThat(Verdict.of(yes, yes).outcome()).isEqualTo(Outcome.YES);
        assertThat(Verdict.of(yes, maybe).outcome()).isEqualTo(Outcome.INCONCLUSIVE);
        assertThat(Verdict.of(maybe, no, yes).outcome()).isEqualTo(Outcome.NO);
        assertThatThrownBy(() -> new Verdict(List.of())).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void repeatsGiveTheMedianAndTheRelativeSpread() {
        Medians.Repeats reps = new Medians.Repeats();
        reps.add("c", Map.of("x", 10.0));
        reps.add("c", Map.of("x", 30.0));
        reps.add("c", Map.of("x", 20.0));
        Stat x = reps.medians().get("c", "x");
        assertThat(x.median()).isEqualTo(20.0);
        assertThat(x.spread()).isCloseTo(1.0, within(1e-9));   // (30 - 10) / 20
        reps.add("c", Map.of("x", 25.0));
        assertThat(reps.medians().median("c", "x")).isEqualTo(22.5);
        assertThat(reps.count("c")).isEqualTo(4);
        assertThat(Medians.Repeats.stat(List.of(7.0)).spread()).isZero();
        assertThat(Stat.ratio(new Stat(50, 0.1), new Stat(100, 0.05))).isEqualTo(new Stat(0.5, 0.1 + 0.05));
    }
}
