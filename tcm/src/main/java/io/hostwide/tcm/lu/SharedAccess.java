package io.hostwide.tcm.lu;

import io.hostwide.tcm.spi.SenseReason;

import java.util.List;
import java.util.function.Consumer;

/**
 * The ALUA policy of a logical unit that several gateway processes export, only one of which owns the storage at a
 * time (an RBD image's exclusive lock): the ALUA gate asks it before a command that writes the medium runs through
 * an active group, and SET TARGET PORT GROUPS hands it the states asked for, since here a state follows ownership
 * rather than a table. Set on {@link AluaGroups#shared(SharedAccess)}; absent for ordinary LUs.
 */
public interface SharedAccess {

    /**
     * Whether a command that writes the medium may run through {@code g} now (one volatile read when this gateway
     * owns the LU). False ends it NOT READY / ASYMMETRIC ACCESS STATE TRANSITION; implicit ALUA starts taking
     * ownership here then, so that the initiator's retry succeeds.
     */
    boolean admitsWrite(TargetPortGroup g);

    /**
     * SET TARGET PORT GROUPS (SPC-4 §6.40) asked for {@code states[i]} of {@code groups.get(i)}, already validated;
     * {@code done} gets null once the transitions are carried out, or the reason to fail the command with. Called
     * on the command's thread; {@code done} may run on another.
     */
    void explicitRequest(List<TargetPortGroup> groups, int[] states, Consumer<SenseReason> done);
}
