package io.hostwide.tcm.lu;

import io.hostwide.tcm.spi.DataPathErrors;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * Reservation state of one logical unit: persistent reservations (SPC-4 §5.13) and the SPC-2 RESERVE/RELEASE
 * reservation. Readers take {@link #state()} (one volatile read of an immutable {@link PrState}); writers —
 * PERSISTENT RESERVE OUT, RESERVE/RELEASE, resets — serialise on this object, build the next state and publish
 * it, writing the APTPL file first when persistence is active (so GOOD is only returned once it is durable).
 */
public final class PersistentReservations {
    private final Device device;
    private volatile PrState state = PrState.EMPTY; // written under the monitor; read lock-free by the gate
    private Path aptplFile;                         // guarded by this

    public PersistentReservations(Device device) { this.device = device; }

    public PrState state() { return state; }

    /**
     * Keeps APTPL state in {@code directory} (file {@code aptpl_<unit serial>}, written atomically) and restores
     * what a previous run persisted there, with PRgeneration 0 as after any power on. Call once, before the LU
     * is exported.
     */
    public synchronized void persistIn(Path directory) {
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
     * Publishes {@code next}. With APTPL active the file is replaced first; a write failure keeps the old state
     * and returns false (the command then fails and changes nothing).
     */
    public synchronized boolean publish(PrState next) {
        if (aptplFile != null && (next.aptpl() || state.aptpl())) {
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

    /** Queues {@code ascAscq} for every I_T nexus of this LU that {@code who} selects. */
    public void unitAttention(Predicate<ItNexus> who, int ascAscq) {
        for (SessionLun l : device.nexuses()) {
            if (who.test(l.session())) {
                l.unitAttentions().add(ascAscq);
            }
        }
    }

    /** The I_T nexuses (sessions) currently logged in that {@code r} registers. */
    public List<ItNexus> nexusesOf(Registration r) {
        List<ItNexus> out = new ArrayList<>();
        for (SessionLun l : device.nexuses()) {
            if (r.matches(l.session())) {
                out.add(l.session());
            }
        }
        return out;
    }

    public Device device() { return device; }

    /** LUN reset / target reset (SPC-2 §5.5.1, SAM-5 §6.3): the SPC-2 reservation is released. */
    public synchronized void releaseSpc2() {
        PrState s = state;
        if (s.spc2Holder() != null) {
            state = new PrState(s.generation(), s.registrations(), s.type(), s.holder(), null, s.aptpl());
        }
    }

    /**
     * A power on (TARGET COLD RESET, SAM-5 §6.3.2). SPC-4 §5.14.5 (APTPL): when the last valid PERSISTENT RESERVE
     * OUT parameter list set APTPL, the registrations and the persistent reservation are kept, as across a power
     * loss; otherwise they are all lost. The SPC-2 reservation goes either way, and PRgeneration restarts at 0
     * "regardless of the APTPL bit value" (SPC-4 §6.16.2).
     */
    public synchronized void powerOn() {
        PrState s = state;
        PrState next = s.aptpl() ? new PrState(0, s.registrations(), s.type(), s.holder(), null, true) : PrState.EMPTY;
        if (!publish(next)) { // the APTPL file could not be rewritten: keep what it holds, still drop SPC-2
            releaseSpc2();
        }
    }

    /** I_T nexus loss or reset: releases an SPC-2 reservation {@code nexus} holds. */
    public synchronized void releaseSpc2(ItNexus nexus) {
        if (state.spc2Holder() == nexus) {
            releaseSpc2();
        }
    }

    @Override
    public String toString() { return "PersistentReservations[" + device.name() + " " + state + "]"; }
}
