package io.hostwide.tcm.lu;

import io.hostwide.tcm.spi.DataPathErrors;
import io.hostwide.tcm.spi.ReservationStore;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Reservation state of one logical unit: persistent reservations (SPC-4 §5.13) and the SPC-2 RESERVE/RELEASE
 * reservation. Readers take {@link #state()} (one volatile read of an immutable {@link PrState}); writers —
 * PERSISTENT RESERVE OUT, RESERVE/RELEASE, resets — pass {@link #change} a function from the current state to a
 * {@link PrChange}; it is applied under this object's monitor, writing the APTPL file first when persistence is
 * active (so GOOD is only returned once it is durable).
 *
 * <p>With a {@link SharedReservations shared store} (several gateways exporting one LU) the function is run on
 * the store's freshest state and the result compare-and-set against it, again on the winner's state after a
 * lost race; the per-command check still reads only the local copy, which the store's notify keeps current.
 */
public final class PersistentReservations {
    private final Device device;
    private volatile PrState state = PrState.EMPTY; // written under the monitor (or by the shared copy); read lock-free by the gate
    private Path aptplFile;                         // guarded by this
    private volatile SharedReservations shared;     // set once, before export

    public PersistentReservations(Device device) { this.device = device; }

    public PrState state() { return state; }

    /** Replaces the local copy (the shared copy installs what the store holds). */
    void install(PrState s) { state = s; }

    /** The outcome of {@link #change}. */
    public enum Status {
        /** The next state is published (and, shared, acknowledged by every gateway's watch). */
        COMMITTED,
        /** The writer decided nothing changes. */
        UNCHANGED,
        /** APTPL file write failed: nothing changed (INSUFFICIENT REGISTRATION RESOURCES, as today). */
        PERSIST_FAILED,
        /** The shared store could not be reached or the change not confirmed: answer BUSY, retry later. */
        UNAVAILABLE
    }

    /**
     * {@code decided} is the change of the last run of the writer (null with UNAVAILABLE before any run);
     * {@code toAbort} the nexuses of this gateway its PREEMPT AND ABORT notices selected.
     */
    public record Result(Status status, PrChange decided, List<ItNexus> toAbort) {
        Result(Status status, PrChange decided) { this(status, decided, List.of()); }
    }

    /**
     * Runs writer {@code decide} on the current state and commits what it returns; on a shared store, on the
     * store's state, again after each lost compare-and-set. Unit attentions the change owes are queued here, on
     * this gateway's nexuses and (shared) on the others'; the caller then runs {@code decided().finish()}.
     */
    public Result change(Function<PrState, PrChange> decide) {
        SharedReservations sh = shared;
        if (sh != null) {
            return sh.change(decide);
        }
        synchronized (this) {
            PrChange c = decide.apply(state);
            if (c.next() == null) {
                return new Result(Status.UNCHANGED, c);
            }
            if (!publish(c.next())) {
                return new Result(Status.PERSIST_FAILED, c);
            }
            return new Result(Status.COMMITTED, c, apply(c.notices()));
        }
    }

    /**
     * Shares this LU's reservations through {@code store} as gateway {@code gatewayId} (unique among the
     * gateways; it need not survive a restart: it only tells a gateway its own notifies apart). Loads the
     * store's state, which is the persistence from then on: an APTPL file restored by {@link #persistIn} is
     * superseded and no longer written. Call once, before the LU is exported. A store that is also
     * {@link AutoCloseable} (a RADOS client of its own) belongs to the LU once this returns and is closed with it.
     *
     * @throws ReservationStore.UnavailableException the store cannot be reached: the LU must not be exported
     */
    public void share(ReservationStore store, String gatewayId) throws ReservationStore.UnavailableException {
        synchronized (this) {
            if (shared != null) {
                throw new IllegalStateException(device.name() + " already shares its reservations");
            }
            SharedReservations sh = new SharedReservations(this, store, gatewayId);
            sh.start();
            shared = sh;
        }
    }

    /** The shared copy, or null for a single-gateway LU. */
    public SharedReservations shared() { return shared; }

    /**
     * The state a PERSISTENT RESERVE IN answers from: the local copy while it is trusted (the notify keeps it
     * current), else a fresh read from the store; null when the store cannot be reached (answer BUSY).
     */
    public PrState stateForRead() {
        PrState s = state;
        SharedReservations sh = shared;
        return s.untrusted() && sh != null ? sh.recoverNow() : s;
    }

    /**
     * Keeps APTPL state in {@code directory} (file {@code aptpl_<unit serial>}, written atomically) and restores
     * what a previous run persisted there, with PRgeneration 0 as after any power on. Call once, before the LU
     * is exported. A shared LU ignores it: the store is the persistence.
     */
    public synchronized void persistIn(Path directory) {
        if (shared != null) {
            return;
        }
        this.aptplFile = directory.resolve("aptpl_" + device.unitSerial());
        try {
            PrState restored = AptplStore.read(aptplFile);
            if (restored != null) { // a restart is a power on: PRgeneration restarts at 0 (SPC-4 §6.16.2)
                state = new PrState(0, restored.registrations(), restored.type(), restored.holder(), null,
                        restored.aptpl());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot restore APTPL state from " + aptplFile, e);
        }
    }

    public synchronized Path aptplFile() { return aptplFile; }

    /**
     * Publishes {@code next} locally. With APTPL active the file is replaced first; a write failure keeps the
     * old state and returns false (the command then fails and changes nothing).
     */
    private boolean publish(PrState next) {
        // the file has no SPC-2 holder: RESERVE/RELEASE(6/10) and resets neither rewrite it nor fail on it
        boolean persistedPart = !next.withSpc2Holder(null).equals(state.withSpc2Holder(null));
        if (aptplFile != null && persistedPart && (next.aptpl() || state.aptpl())) {
            try {
                if (next.aptpl()) {
                    AptplStore.write(aptplFile, next);
                } else {
                    AptplStore.delete(aptplFile);
                }
            } catch (IOException e) {
                DataPathErrors.LOG.report(aptplFile.toString(), "APTPL state update (PERSISTENT RESERVE OUT)", -1, -1, e);
                return false;
            }
        }
        state = next;
        return true;
    }

    /** Queues the unit attentions of {@code notices} on this gateway's nexuses; returns the nexuses to abort. */
    List<ItNexus> apply(List<PrNotice> notices) {
        List<ItNexus> abort = List.of();
        if (notices.isEmpty()) {
            return abort;
        }
        for (SessionLun l : device.nexuses()) {
            for (PrNotice n : notices) {
                if (n.selects(l.session())) {
                    l.unitAttentions().add(n.ascAscq());
                    if (n.abort()) {
                        if (abort.isEmpty()) {
                            abort = new ArrayList<>();
                        }
                        abort.add(l.session());
                    }
                }
            }
        }
        return abort;
    }

    public Device device() { return device; }

    /** LUN reset / target reset (SPC-2 §5.5.1, SAM-5 §6.3): the SPC-2 reservation is released. */
    public void releaseSpc2() {
        if (state.spc2Holder() != null || shared != null) {
            change(s -> s.spc2Holder() == null ? PrChange.none(() -> 0) : PrChange.to(s.withSpc2Holder(null), () -> 0));
        }
    }

    /**
     * A reset taken on this gateway (LOGICAL UNIT RESET, a target reset; SAM-5 §6.3) reaches the LU through every
     * gateway: shared, each other gateway aborts its commands on the LU and raises {@code ascAscq} on its I_T
     * nexuses of it ({@link LuEvent.Kind#RESET}) before this returns. Call after {@link #releaseSpc2()} (or
     * {@link #powerOn()}), whose shared change the others install first. Nothing to do for a single gateway.
     */
    public void resetOtherGateways(int ascAscq) {
        SharedReservations sh = shared;
        if (sh != null) {
            sh.broadcast(LuEvent.Kind.RESET, ascAscq);
        }
    }

    /**
     * A power on (TARGET COLD RESET, SAM-5 §6.3.2). SPC-4 §5.14.5 (APTPL): when the last valid PERSISTENT RESERVE
     * OUT parameter list set APTPL, the registrations and the persistent reservation are kept, as across a power
     * loss; otherwise they are all lost. The SPC-2 reservation goes either way, and PRgeneration restarts at 0
     * "regardless of the APTPL bit value" (SPC-4 §6.16.2). Shared, the power on is the LU's, on every gateway.
     */
    public void powerOn() {
        Result r = change(s -> PrChange.to(
                s.aptpl() ? new PrState(0, s.registrations(), s.type(), s.holder(), null, true) : PrState.EMPTY,
                () -> 0));
        if (r.status() == Status.PERSIST_FAILED) { // the APTPL file could not be rewritten: keep it, still drop SPC-2
            releaseSpc2();
        }
    }

    /** I_T nexus loss or reset: releases an SPC-2 reservation {@code nexus} holds. */
    public void releaseSpc2(ItNexus nexus) {
        if (state.isSpc2Holder(nexus) || state.untrusted()) {
            change(s -> s.isSpc2Holder(nexus) ? PrChange.to(s.withSpc2Holder(null), () -> 0) : PrChange.none(() -> 0));
        }
    }

    /**
     * How this gateway aborts the commands of nexuses another gateway's PREEMPT AND ABORT preempted (SPC-4
     * §5.13.11.4.4); the core sets it. {@code then} runs once they are all gone.
     */
    public interface RemoteAborter {
        void abort(List<ItNexus> nexuses, Runnable then);
    }

    private volatile RemoteAborter remoteAborter;

    public void remoteAborter(RemoteAborter a) { this.remoteAborter = a; }

    RemoteAborter remoteAborter() { return remoteAborter; }

    /** Stops sharing (unwatches); the LU is going away. */
    public void close() {
        SharedReservations sh = shared;
        if (sh != null) {
            sh.close();
        }
    }

    @Override
    public String toString() { return "PersistentReservations[" + device.name() + " " + state + "]"; }
}
