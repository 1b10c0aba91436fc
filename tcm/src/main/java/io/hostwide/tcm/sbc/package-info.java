/**
 * The SBC-4 command set of a direct-access block device: reads and writes, verify, cache, provisioning (UNMAP,
 * WRITE SAME, GET LBA STATUS), the atomic commands (COMPARE AND WRITE, ORWRITE, WRITE ATOMIC), medium commands and
 * SANITIZE; the rows it adds to a table ({@link io.hostwide.tcm.sbc.SbcCommands}). Uses no other command set.
 */
package io.hostwide.tcm.sbc;
