package io.hostwide.cli.lab;

import java.util.List;
import java.util.Locale;

/**
 * Whether our measurements show an experiment's expected shape, clause by clause. Each clause compares medians
 * (of {@link LabRun#repeat()} runs per cell) against a noise margin: ratios within it are noise. A directional
 * clause ("a exceeds b") is yes beyond the margin in the claimed direction, no beyond it in the other, and
 * inconclusive inside it; a clause that claims no difference ("a keeps up with b", "alike") is yes inside the
 * margin and no beyond it. The whole verdict is no if any clause is no, else inconclusive if any is, else yes.
 */
record Verdict(List<Clause> clauses) {

    enum Outcome {
        YES, NO, INCONCLUSIVE;

        String word() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** One checked sentence of the printed expectation, with the numbers it was judged on. */
    record Clause(String claim, Outcome outcome, String evidence) {
    }

    Verdict {
        if (clauses.isEmpty()) {
            throw new IllegalArgumentException("a verdict checks at least one clause");
        }
        clauses = List.copyOf(clauses);
    }

    static Verdict of(Clause... clauses) {
        return new Verdict(List.of(clauses));
    }

    Outcome outcome() {
        if (clauses.stream().anyMatch(c -> c.outcome() == Outcome.NO)) {
            return Outcome.NO;
        }
        return clauses.stream().anyMatch(c -> c.outcome() == Outcome.INCONCLUSIVE) ? Outcome.INCONCLUSIVE
                : Outcome.YES;
    }

    /**
     * The margin a comparison of these values uses: the stated one, widened to the largest spread of the runs
     * behind them, so values whose own runs disagree by more than the stated noise cannot decide a clause.
     */
    static double margin(double stated, Medians.Stat... values) {
        double m = stated;
        for (Medians.Stat v : values) {
            m = Math.max(m, v.spread());
        }
        return m;
    }

    /** "{@code a} exceeds {@code b}": yes when a/b is above 1 + margin, no when below 1 - margin. */
    static Clause exceeds(String claim, Medians.Stat a, Medians.Stat b, double statedMargin) {
        double m = margin(statedMargin, a, b);
        double r = ratio(a, b);
        Outcome o = r > 1 + m ? Outcome.YES : r < 1 - m ? Outcome.NO : Outcome.INCONCLUSIVE;
        return new Clause(claim, o, evidence(a, b, r, m));
    }

    /** "{@code a} is no lower than {@code b}": yes when a/b is at least 1 - margin, else no. */
    static Clause keepsUpWith(String claim, Medians.Stat a, Medians.Stat b, double statedMargin) {
        double m = margin(statedMargin, a, b);
        double r = ratio(a, b);
        return new Clause(claim, r >= 1 - m ? Outcome.YES : Outcome.NO, evidence(a, b, r, m));
    }

    /** "all alike": yes when the largest over the smallest is at most 1 + margin, else no. */
    static Clause alike(String claim, double statedMargin, Medians.Stat... values) {
        double m = margin(statedMargin, values);
        Medians.Stat lo = values[0];
        Medians.Stat hi = values[0];
        for (Medians.Stat v : values) {
            lo = v.median() < lo.median() ? v : lo;
            hi = v.median() > hi.median() ? v : hi;
        }
        double r = ratio(hi, lo);
        return new Clause(claim, r <= 1 + m ? Outcome.YES : Outcome.NO, String.format(Locale.ROOT,
                "largest / smallest %.2f / %.2f = %.2fx, margin +-%.0f%%", hi.median(), lo.median(), r, 100 * m));
    }

    /** a/b; a zero b makes any positive a infinitely larger and a zero a equal. */
    private static double ratio(Medians.Stat a, Medians.Stat b) {
        if (b.median() == 0) {
            return a.median() == 0 ? 1 : a.median() > 0 ? Double.POSITIVE_INFINITY : Double.NEGATIVE_INFINITY;
        }
        return a.median() / b.median();
    }

    private static String evidence(Medians.Stat a, Medians.Stat b, double r, double m) {
        return String.format(Locale.ROOT, "%.2f vs %.2f = %.2fx, margin +-%.0f%%", a.median(), b.median(), r,
                100 * m);
    }
}
