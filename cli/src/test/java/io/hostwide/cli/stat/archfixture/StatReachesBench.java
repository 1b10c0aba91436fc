package io.hostwide.cli.stat.archfixture;

import io.hostwide.cli.bench.archfixture.BenchReachesStat;

/** LayeringTest's fixture, never run: the other half of the bench &lt;-&gt; stat cycle. */
public final class StatReachesBench {
    BenchReachesStat other;
}
