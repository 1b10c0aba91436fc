package io.hostwide.cli.copy;

/** What one pass over the range does with each chunk. */
public enum Phase {
    /** Writes seeded pseudo-random data to the source (so a copy has something to carry). */
    FILL("fill"),
    /** Reads the source chunk, then writes it to the destination. */
    COPY("copy"),
    /** Reads both devices' chunks and compares them byte for byte. */
    VERIFY("verify");

    final String verb;

    Phase(String verb) {
        this.verb = verb;
    }
}
