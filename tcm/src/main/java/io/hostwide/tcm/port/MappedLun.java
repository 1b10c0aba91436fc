package io.hostwide.tcm.port;

import io.hostwide.tcm.lu.Lun;

/**
 * An ACL entry: the LUN number an initiator sees ({@code mappedLun}) mapped to a port's LUN, possibly read-only.
 */
public record MappedLun(int mappedLun, Lun lun, boolean readOnly) {}
