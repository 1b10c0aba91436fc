package io.hostwide.blk.archfixture.ping;

import io.hostwide.blk.archfixture.pong.Pong;

/** Fixture for {@code ArchitectureTest}: one half of a package cycle. */
public final class Ping {
    public Pong pong;
}
