package io.hostwide.cli.bench.archfixture;

import io.hostwide.cli.stat.archfixture.StatReachesBench;

/**
 * LayeringTest's fixture, never run: one half of a bench &lt;-&gt; stat package cycle, the shape issue 11 found
 * ({@code BenchCommand} used stat's printer, {@code StatCommand} bench's device opener).
 */
public final class BenchReachesStat {
    StatReachesBench other;
}
