package io.hostwide.scsi.mid;

import io.hostwide.scsi.spec.SenseData;

/** The outcome of an internal command ({@link ScsiHost#execute}): result, sense and residual. */
public record ExecResult(int result, byte[] sense, int resid) {

    public int hostByte() { return HostByte.hostByte(result); }

    public int status() { return HostByte.status(result); }

    public boolean good() { return result == 0; }

    public int senseKey() { return sense.length < 3 ? -1 : SenseData.senseKey(sense); }

    public int ascAscq() { return sense.length < 14 && !SenseData.isDescriptorFormat(sense) ? -1 : SenseData.ascAscq(sense); }
}
