package io.hostwide.tcm.lu;

/**
 * Told when a unit attention condition is queued for one I_T nexus and logical unit, so a fabric can also report it
 * asynchronously (iSCSI: an Asynchronous Message carrying sense data, RFC 7143 §11.9). The condition stays queued
 * and is still reported with the next command (SAM-5 §5.14).
 *
 * <p>Called on the thread that queued the condition, possibly while the core holds a lock of its own (a LUN-map
 * rebuild, a reservation change): implementations must only hand the event on, never block or call back into the
 * core.
 */
@FunctionalInterface
public interface UnitAttentionListener {
    void queued(SessionLun lun, int ascAscq);
}
