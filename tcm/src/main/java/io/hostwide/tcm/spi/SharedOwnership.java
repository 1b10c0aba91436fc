package io.hostwide.tcm.spi;

import java.io.IOException;
import java.util.Map;
import java.util.Set;

/**
 * A backstore that several gateways (separate target processes) export at once, with one of them owning it at a
 * time: for an RBD image, the holder of its exclusive lock. The ALUA layer ({@code io.hostwide.tcm.alua.GatewayAlua})
 * consumes it: the owner's target port group is Active/Optimized, the others' are not, and a gateway that must
 * serve writes {@link #take() takes} ownership, which fences the previous owner (for RBD: librbd blocklists it, so
 * its late writes fail at every OSD).
 *
 * <p>The store also keeps a small key/value table shared by all gateways (RBD image metadata), through which they
 * publish their target port groups and the owner's, so that every gateway answers REPORT TARGET PORT GROUPS alike.
 * Every method may block on the cluster: call them off the I/O path.
 */
public interface SharedOwnership {

    /** Implemented by backstores that can be shared this way (and can say, at run time, whether they are). */
    interface Source {
        /** The ownership handle, or null when this backstore cannot be shared (e.g. no exclusive-lock feature). */
        SharedOwnership sharedOwnership();
    }

    /** Whether this process owns the store now (RBD: rbd_is_exclusive_lock_owner). */
    boolean isOwner() throws IOException;

    /** Whether any process owns it now (RBD: a holder of the exclusive lock exists, alive or not). */
    boolean anyOwner() throws IOException;

    /**
     * Makes this process the owner: breaks the current owner's hold (fencing it) and takes it. Returns when this
     * process owns the store.
     *
     * @throws IOException when the store cannot be taken (the message says why)
     */
    void take() throws IOException;

    /** The shared entries whose keys start with {@code prefix}, by key. */
    Map<String, String> entries(String prefix) throws IOException;

    /**
     * Takes ownership only if nobody holds it, without breaking anyone's hold (a gateway starting up: two starting
     * at once must not fence each other).
     *
     * @return whether this process owns the store now
     */
    boolean tryTake() throws IOException;

    /** Sets a shared entry (RBD: rbd_metadata_set; a non-owner's request is carried out by the owner). */
    void put(String key, String value) throws IOException;

    /**
     * Removes a shared entry (RBD: rbd_metadata_remove); an absent entry is no error. A gateway that stops cleanly
     * removes its own, and the owner removes those of gateways found dead.
     */
    default void remove(String key) throws IOException {
        throw new IOException(this + " cannot remove shared entries");
    }

    /**
     * Gives ownership up without being fenced (RBD: rbd_lock_release), so that another gateway takes it over
     * without breaking a lock: a gateway that stops cleanly does this as its last act. Nothing when not the owner.
     */
    default void release() throws IOException {}

    /**
     * This process's client of the store as {@link #liveClients()} names it (RBD: the RADOS instance id of the
     * image's client, which changes when the image is reopened after a fence), or null when the store cannot tell.
     */
    default String clientId() throws IOException { return null; }

    /**
     * The clients that have the store open now, as {@link #clientId()} names them (RBD: the instance ids of the
     * image header's watchers; a process that died leaves it when its watch times out, or at once when it is
     * blocklisted), or null when the store cannot tell: then every registered gateway counts as alive.
     */
    default Set<String> liveClients() throws IOException { return null; }

    /** This process's client address as fencing names it (RBD: the OSD blocklist's form), or null. */
    default String clientAddress() { return null; }

    /**
     * Runs {@code listener} (on a thread of its own) each time this process's client of the store is replaced
     * (RBD: the image reopened with a new client after a fence), when {@link #clientId()} and {@link
     * #clientAddress()} change.
     */
    default void onClientChange(Runnable listener) {}

    /**
     * What identifies the store itself, the same in every gateway (RBD: pool and image id): the logical unit's
     * serial and NAA designator derive from it, so that multipath sees one device through all gateways.
     */
    String identity();
}
