package io.hostwide.scsi.mid;

/** What an error-handling callback of a {@link LowLevelDriver} achieved ({@code SUCCESS} / {@code FAILED}). */
public enum EhResult {
    SUCCESS,
    FAILED
}
