package io.hostwide.tcm.backstore.rbd;

import io.hostwide.tcm.spi.AsyncBackstore;
import io.hostwide.tcm.spi.BackstoreStatusException;
import io.hostwide.tcm.spi.ReservationStore;
import io.hostwide.tcm.spi.SenseReason;
import io.hostwide.tcm.spi.SharedOwnership;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link RadosReservationStore} against the real single-node cluster (issue 16 item 2): two stores on one image are
 * two RADOS clients, as two gateways are. Versions and compare-and-set, watch/notify between the clients, races,
 * and the fencing of a watcher that never acknowledges.
 */
@ExtendWith(CephTestCluster.class)
class RadosReservationStoreTest {
    private static Rbd.SharedReservationStore store(CephTestCluster c, String image) throws Exception {
        return Rbd.openReservationStore(RbdConfig.of(c.conf(), "rbd", image));
    }

    private static byte[] b(String s) { return s.getBytes(StandardCharsets.UTF_8); }

    @Test
    void compareAndSetVersionsAreSeenByTheOtherClient(CephTestCluster c) throws Exception {
        String image = c.createImage("pr", 8);
        try (Rbd.SharedReservationStore a = store(c, image); Rbd.SharedReservationStore b = store(c, image)) {
            assertThat(a.objectName()).startsWith("hostwide_pr.").isEqualTo(b.objectName());
            ReservationStore.Versioned empty = a.load();
            assertThat(empty.version()).as("nothing stored yet").isZero();
            assertThat(empty.bytes()).isEmpty();
            assertThat(a.compareAndSet(0, b("one"))).isEqualTo(1);
            assertThat(b.compareAndSet(0, b("lost"))).as("version 0 is gone").isEqualTo(ReservationStore.LOST);
            ReservationStore.Versioned v = b.load();
            assertThat(v.version()).isEqualTo(1);
            assertThat(v.bytes()).isEqualTo(b("one"));
            assertThat(b.compareAndSet(1, b("two"))).isEqualTo(2);
            assertThat(a.compareAndSet(1, b("stale"))).isEqualTo(ReservationStore.LOST);
            assertThat(a.load().bytes()).isEqualTo(b("two"));
            assertThat(a.compareAndSet(2, new byte[0])).as("an empty state is a state").isEqualTo(3);
            assertThat(b.load()).satisfies(x -> {
                assertThat(x.version()).isEqualTo(3);
                assertThat(x.bytes()).isEmpty();
            });
            String obj = c.run(List.of("rados", "-c", c.conf(), "-p", "rbd", "getxattr", a.objectName(),
                    RadosReservationStore.VERSION_XATTR), 60);
            // run() merges stderr (the rados tool may warn about its admin socket): the value is the last line
            assertThat(obj.strip().lines().reduce((x, y) -> y).orElse("")).as("20-digit zero-padded version xattr")
                    .isEqualTo("00000000000000000003");
        }
    }

    @Test
    void aNotifyReachesEveryWatcherBeforeItReturns(CephTestCluster c) throws Exception {
        String image = c.createImage("pr", 8);
        try (Rbd.SharedReservationStore a = store(c, image); Rbd.SharedReservationStore b = store(c, image)) {
            BlockingQueue<String> seenA = new ArrayBlockingQueue<>(10);
            BlockingQueue<String> seenB = new ArrayBlockingQueue<>(10);
            try (ReservationStore.Watch wa = a.watch(recorder(seenA)); ReservationStore.Watch wb = b.watch(recorder(seenB))) {
                assertThat(wa.healthy()).isTrue();
                assertThat(a.notifyWatchers(b("hello"), Duration.ofSeconds(10))).isTrue();
                // acknowledged: delivered before notifyWatchers returned, no waiting needed
                assertThat(seenA).containsExactly("hello");
                assertThat(seenB).containsExactly("hello");
                assertThat(b.notifyWatchers(b("again"), Duration.ofSeconds(10))).isTrue();
                assertThat(seenA).containsExactly("hello", "again");
            }
            assertThat(a.notifyWatchers(b("nobody"), Duration.ofSeconds(10))).as("no watchers: trivially all").isTrue();
            assertThat(seenA).hasSize(2);
        }
    }

    @Test
    void racingCompareAndSetsHaveOneWinnerPerVersion(CephTestCluster c) throws Exception {
        String image = c.createImage("pr", 8);
        int rounds = 25;
        try (Rbd.SharedReservationStore a = store(c, image); Rbd.SharedReservationStore b = store(c, image)) {
            ExecutorService ex = Executors.newFixedThreadPool(2);
            CyclicBarrier start = new CyclicBarrier(2);
            try {
                List<Future<Integer>> wins = List.of(ex.submit(() -> increments(a, rounds, start)),
                        ex.submit(() -> increments(b, rounds, start)));
                int total = wins.get(0).get(120, TimeUnit.SECONDS) + wins.get(1).get(120, TimeUnit.SECONDS);
                ReservationStore.Versioned end = a.load();
                assertThat(total).isEqualTo(2 * rounds);
                assertThat(end.version()).as("each increment one version, none lost").isEqualTo(2 * rounds);
                assertThat(new String(end.bytes(), StandardCharsets.UTF_8)).isEqualTo(Integer.toString(2 * rounds));
            } finally {
                ex.shutdownNow();
            }
        }
    }

    /** Read-modify-compare-and-set of a counter, {@code n} successful times; returns n. */
    private static int increments(ReservationStore s, int n, CyclicBarrier start) throws Exception {
        start.await();
        int done = 0;
        while (done < n) {
            ReservationStore.Versioned v = s.load();
            int count = v.bytes().length == 0 ? 0 : Integer.parseInt(new String(v.bytes(), StandardCharsets.UTF_8));
            long next = s.compareAndSet(v.version(), b(Integer.toString(count + 1)));
            if (next != ReservationStore.LOST) {
                assertThat(next).isEqualTo(v.version() + 1);
                done++;
            }
        }
        return done;
    }

    @Test
    void aWatcherThatNeverAcknowledgesIsFenced(CephTestCluster c) throws Exception {
        String image = c.createImage("pr", 8);
        try (Rbd.SharedReservationStore a = store(c, image); Rbd.SharedReservationStore b = store(c, image)) {
            a.compareAndSet(0, b("state"));
            CountDownLatch hang = new CountDownLatch(1);
            CountDownLatch broken = new CountDownLatch(1);
            ReservationStore.Watch wb = b.watch(new ReservationStore.Watcher() {
                @Override
                public void notified(byte[] payload) {
                    try {
                        hang.await(); // a gateway that stalls: it never installs the change, never acks
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }

                @Override
                public void broken(Exception cause) { broken.countDown(); }
            });
            BlockingQueue<String> seenA = new ArrayBlockingQueue<>(10);
            try (ReservationStore.Watch wa = a.watch(recorder(seenA))) {
                assertThat(a.notifyWatchers(b("change"), Duration.ofSeconds(3))).as("B never acked").isFalse();
                assertThat(seenA).as("A's own watch still got it").containsExactly("change");
                assertThat(c.run(List.of("ceph", "-c", c.conf(), "osd", "blocklist", "ls"), 60))
                        .as("B's reservation client is blocklisted").contains(((RadosReservationStore) b).address());
                assertThatThrownBy(b::load).as("the fenced client can no longer reach the object")
                        .isInstanceOf(ReservationStore.UnavailableException.class)
                        .hasMessageContaining("ESHUTDOWN");
                hang.countDown();
                // B reconnects with a new client (a new address) and reads the current state again
                assertThat(b.load().bytes()).isEqualTo(b("state"));
                assertThat(a.notifyWatchers(b("after"), Duration.ofSeconds(10))).as("only live watchers left").isTrue();
            } finally {
                hang.countDown();
                wb.close();
            }
        }
    }

    /**
     * Issue 16: fencing a silent gateway blocklists its image client too (its address recorded beside the watch),
     * so a write it had checked before it stalled cannot land: the image answers BUSY until it is reopened.
     */
    @Test
    void aSilentWatchersImageClientIsFencedToo(CephTestCluster c) throws Exception {
        String image = c.createImage("pri", 8);
        AsyncBackstore img = Rbd.open(new RbdConfig(c.conf(), "rbd", image, null, null, 10, java.util.Map.of(), 8), 512);
        try (img; Rbd.SharedReservationStore a = store(c, image); Rbd.SharedReservationStore b = store(c, image)) {
            SharedOwnership o = ((SharedOwnership.Source) img).sharedOwnership();
            b.imageClient(o::clientAddress);
            o.onClientChange(b::refreshWatchers);
            String imageAddress = RadosClient.blocklistForm(RbdBackstoreTest.clientAddress(img));
            img.write(0, ByteBuffer.allocate(512), false);
            a.compareAndSet(0, b("state"));
            CountDownLatch hang = new CountDownLatch(1);
            ReservationStore.Watch wb = b.watch(new ReservationStore.Watcher() {
                @Override
                public void notified(byte[] payload) {
                    try {
                        hang.await(); // stalls: never acks
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }

                @Override
                public void broken(Exception cause) { }
            });
            try {
                assertThat(a.notifyWatchers(b("change"), Duration.ofSeconds(3))).isFalse();
                String list = c.run(List.of("ceph", "-c", c.conf(), "osd", "blocklist", "ls"), 60);
                assertThat(list).as("B's reservation client").contains(((RadosReservationStore) b).address());
                // the image client, blocklisted too, is fenced: it answers BUSY and reopens with a new client
                // (removing its old address from the blocklist once that client is closed, so the list is no proof)
                String now = imageAddress;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (now.equals(imageAddress) && System.nanoTime() < deadline) {
                    try {
                        img.write(1, ByteBuffer.allocate(512), false);
                    } catch (IOException e) {
                        assertThat(e).isInstanceOf(BackstoreStatusException.class);
                        assertThat(((BackstoreStatusException) e).reason()).isEqualTo(SenseReason.BUSY);
                    }
                    Thread.sleep(100);
                    String a2 = RbdBackstoreTest.clientAddress(img);
                    now = a2 == null ? now : RadosClient.blocklistForm(a2);
                }
                assertThat(now).as("B's image client was fenced and replaced").isNotEqualTo(imageAddress);
            } finally {
                hang.countDown();
                wb.close();
            }
        }
    }

    private static ReservationStore.Watcher recorder(BlockingQueue<String> seen) {
        return new ReservationStore.Watcher() {
            @Override
            public void notified(byte[] payload) { seen.add(new String(payload, StandardCharsets.UTF_8)); }

            @Override
            public void broken(Exception cause) { seen.add("broken: " + cause.getMessage()); }
        };
    }
}
