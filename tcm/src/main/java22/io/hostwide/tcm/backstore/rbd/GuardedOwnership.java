package io.hostwide.tcm.backstore.rbd;

import io.hostwide.tcm.spi.SharedOwnership;

import java.io.IOException;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.Lock;

/**
 * An {@link ImageLock} whose every call holds the backstore's handle lock in shared mode, so that a reopen after a
 * fence (which takes it exclusively to close the old image and client) never closes the handles under a call of
 * the ALUA policy or the reservation store. librbd does not survive that: a call into an image being closed ends
 * the process ("terminate called after throwing an instance of 'std::system_error'"), seen with two gateways in
 * implicit mode whose lock moved on every write. A reopen therefore waits for the call under way; the calls of a
 * fenced client fail fast (ESHUTDOWN), so the wait is short.
 */
final class GuardedOwnership implements SharedOwnership {
    private final ImageLock lock;
    private final Lock use;

    GuardedOwnership(ImageLock lock, Lock use) {
        this.lock = lock;
        this.use = use;
    }

    private interface Call<T> {
        T run() throws IOException;
    }

    private <T> T guarded(Call<T> call) throws IOException {
        use.lock();
        try {
            return call.run();
        } finally {
            use.unlock();
        }
    }

    @Override public boolean isOwner() throws IOException { return guarded(lock::isOwner); }
    @Override public boolean anyOwner() throws IOException { return guarded(lock::anyOwner); }
    @Override public void take() throws IOException { guarded(() -> { lock.take(); return null; }); }
    @Override public Map<String, String> entries(String prefix) throws IOException {
        return guarded(() -> lock.entries(prefix));
    }
    @Override public boolean tryTake() throws IOException { return guarded(lock::tryTake); }
    @Override public void put(String key, String value) throws IOException {
        guarded(() -> { lock.put(key, value); return null; });
    }
    @Override public void remove(String key) throws IOException { guarded(() -> { lock.remove(key); return null; }); }
    @Override public void release() throws IOException { guarded(() -> { lock.release(); return null; }); }
    @Override public String clientId() throws IOException { return guarded(lock::clientId); }
    @Override public Set<String> liveClients() throws IOException { return guarded(lock::liveClients); }
    @Override public String clientAddress() {
        use.lock();
        try {
            return lock.clientAddress();
        } finally {
            use.unlock();
        }
    }
    @Override public void onClientChange(Runnable listener) { lock.onClientChange(listener); }
    @Override public String identity() { return lock.identity(); }
    @Override public String toString() { return lock.toString(); }
}
