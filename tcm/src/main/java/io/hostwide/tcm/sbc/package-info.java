/** SBC-4 direct-access block device emulation: the command table and its handlers. */
package io.hostwide.tcm.sbc;
