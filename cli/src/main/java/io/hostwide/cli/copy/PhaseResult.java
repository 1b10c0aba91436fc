package io.hostwide.cli.copy;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * dd-style accounting of one pass: full and partial records read and written,
 * bytes, how much of the range is done from its start (chunks finish out of
 * order), the first failure and the first miscompare.
 */
public record PhaseResult(Phase phase, VerifyMethod method, int blockSize, long fullIn, long partialIn, long fullOut,
                          long partialOut, long bytes, long contiguousBytes, long elapsedNanos, long mismatches,
                          long firstMismatch, String error, boolean interrupted) {

    /** The source LBA of the first differing byte, or -1. */
    public long firstMismatchLba() {
        return firstMismatch < 0 ? -1 : firstMismatch / blockSize;
    }

    public boolean ok() {
        return error == null && mismatches == 0 && !interrupted;
    }

    public String toText() {
        StringBuilder sb = new StringBuilder();
        double secs = Math.max(elapsedNanos, 1) / 1e9;
        sb.append(String.format(Locale.ROOT, "%s: %d+%d records in%n", phase.verb, fullIn, partialIn));
        if (phase != Phase.VERIFY) {
            sb.append(String.format(Locale.ROOT, "%s: %d+%d records out%n", phase.verb, fullOut, partialOut));
        }
        sb.append(String.format(Locale.ROOT, "%s: %d bytes in %.2f s, %.1f MiB/s%n", phase.verb, bytes, secs,
                bytes / secs / (1 << 20)));
        if (phase == Phase.VERIFY) {
            sb.append("verify: method ").append(method == VerifyMethod.VERIFY_CMD
                    ? "verify-cmd (VERIFY(16) BYTCHK=1 on the destination)" : "compare").append('\n');
            boolean partial = interrupted || error != null;
            if (mismatches == 0) {
                // A stopped pass has checked only part of the range: say how much, not "no differences".
                sb.append(partial ? String.format(Locale.ROOT, "verify: no differences in the %d bytes checked%n", bytes)
                        : "verify: no differences\n");
            } else {
                sb.append(String.format(Locale.ROOT, "verify: %d chunks differ, first difference at byte %d (LBA %d)%n",
                        mismatches, firstMismatch, firstMismatchLba()));
            }
        }
        if (error != null) {
            sb.append(phase.verb).append(": stopped by an I/O error: ").append(error).append('\n');
        }
        if (interrupted || error != null) {
            sb.append(String.format(Locale.ROOT, "%s: %s; the first %d bytes of the range are done%n",
                    phase.verb, interrupted ? "interrupted" : "stopped", contiguousBytes));
        }
        return sb.toString();
    }

    public Map<String, Object> toTree() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("phase", phase.verb);
        m.put("records_in", fullIn + "+" + partialIn);
        m.put("records_out", fullOut + "+" + partialOut);
        m.put("bytes", bytes);
        m.put("contiguous_bytes", contiguousBytes);
        m.put("elapsed_ns", elapsedNanos);
        if (method != null) {
            m.put("method", method.label);
        }
        m.put("mismatches", mismatches);
        if (mismatches > 0) {
            m.put("first_mismatch", firstMismatch);
            m.put("first_mismatch_lba", firstMismatchLba());
        }
        m.put("error", error);
        m.put("interrupted", interrupted);
        return m;
    }
}
