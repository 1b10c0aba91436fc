package io.hostwide.tcm.dispatch;

/**
 * A vital product data page one command set contributes to a command table (SPC-4 §7.8), next to its rows: the
 * copy manager brings its Third-party Copy page (8Fh) this way, so that INQUIRY need not know which command sets
 * a device type has.
 */
@FunctionalInterface
public interface VpdPageWriter {

    /** Writes the page body after the 4-byte VPD header at {@code page[4..]}; returns the total page length. */
    int write(byte[] page);
}
