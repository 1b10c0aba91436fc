package io.hostwide.blk;

import io.hostwide.blk.nullb.NullConfig;

/** Fixture for {@link ArchitectureTest}: a core class that reaches up to the null device. Never instantiated. */
final class CoreReachingUp {
    private CoreReachingUp() {
    }

    static String name(NullConfig c) {
        return c.name();
    }
}
