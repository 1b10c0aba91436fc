package io.hostwide.blk.archfixture.pong;

import io.hostwide.blk.archfixture.ping.Ping;

/** Fixture for {@code ArchitectureTest}: the other half of a package cycle. */
public final class Pong {
    public Ping ping;
}
