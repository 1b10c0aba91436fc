package io.hostwide.cli.gateway;

import io.hostwide.tcm.backstore.rbd.Rbd;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Two gateways, one RBD image (issue 16 item 1): two {@code hostwide serve} processes (JVMs of their own, so that
 * SIGKILL and SIGSTOP are real) export the same image as the same target IQN, with port groups 1 (gw-a) and 2 (gw-b)
 * over the bundled test cluster (bin/ceph-test-cluster, started and destroyed here). A client ({@link StampClient})
 * writes stamped blocks through the owner A and keeps the acknowledged ones; A is killed (or frozen); the client
 * moves to B and goes on writing; then every write acknowledged before the kill reads back through B, and so do B's.
 *
 * <p>Fencing: a frozen A (SIGSTOP, a partition) still has a write in its socket when B takes the lock; B overwrites
 * that block, A is resumed (SIGCONT) and carries its write out, which must fail at the OSDs (A was blocklisted when B
 * broke its lock): B's data stays. Failover time (SIGKILL to the first write through B acknowledged) is printed for
 * implicit and explicit ALUA, never asserted. Skipped without Ceph, unless HOSTWIDE_REQUIRE_CEPH=1.
 */
class GatewayFailoverTest {
    private static final String TARGET = "iqn.2026-12.io.hostwide:gw";
    private static final int AO = 0x0;
    private static final int ANO = 0x1;
    private static final int STANDBY = 0x2;
    private static final int OFFLINE = 0xE;
    private static Path cluster;
    private static Path script;

    @TempDir
    Path dir;

    private static void unavailable(String why) {
        if ("1".equals(System.getenv("HOSTWIDE_REQUIRE_CEPH"))) {
            fail(why + " (HOSTWIDE_REQUIRE_CEPH=1)");
        }
        assumeTrue(false, why);
    }

    @BeforeAll
    static void startCluster() throws Exception {
        if (Rbd.unavailable() != null) {
            unavailable(Rbd.unavailable());
        }
        for (String p : List.of("/usr/bin/ceph-mon", "/usr/bin/ceph-osd", "/usr/bin/ceph-mgr")) {
            if (!Files.isExecutable(Path.of(p))) {
                unavailable(p + " is not installed (apt-get install ceph-mon ceph-mgr ceph-osd ceph-common)");
            }
        }
        script = Path.of("..", "bin", "ceph-test-cluster").toAbsolutePath().normalize();
        cluster = Files.createTempDirectory("hostwide-ceph-gateways-");
        Process p = new ProcessBuilder(script.toString(), "start", cluster.toString(), "--image", "gwi:64M",
                "--image", "gwe:64M", "--image", "gwf:64M", "--image", "gwl:64M", "--image", "gwk:64M",
                "--image", "gwr0:64M", "--image", "gwr1:64M").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(240, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
    }

    @AfterAll
    static void destroyCluster() throws Exception {
        if (cluster != null) {
            new ProcessBuilder(script.toString(), "destroy", cluster.toString()).inheritIO().start()
                    .waitFor(120, TimeUnit.SECONDS);
        }
    }

    /** One {@code hostwide serve} process and what it printed. */
    private record Gateway(String name, Process process, int port, BlockingQueue<String> lines) {
        InetSocketAddress portal() { return new InetSocketAddress("127.0.0.1", port); }

        /** Sends {@code sig} to the PID of the process this test started (only), and waits for it to take effect. */
        void signal(String sig, char state) throws Exception {
            Process k = new ProcessBuilder("kill", "-s", sig, Long.toString(process.pid())).redirectErrorStream(true)
                    .start();
            String out = new String(k.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(k.waitFor(10, TimeUnit.SECONDS)).isTrue();
            assertThat(k.exitValue()).as("kill -s %s: %s", sig, out).isZero();
            Path stat = Path.of("/proc", Long.toString(process.pid()), "stat");
            for (int i = 0; i < 200; i++) { // "PID (comm) STATE ...": T when stopped
                String st = Files.readString(stat);
                char now = st.charAt(st.lastIndexOf(')') + 2);
                if ((state == 'T') == (now == 'T')) {
                    return;
                }
                Thread.sleep(10);
            }
            throw new AssertionError(name + " did not reach state " + state + " after SIG" + sig);
        }

        void stop() throws InterruptedException {
            if (process.isAlive()) {
                process.destroy(); // SIGTERM: serve's graceful stop
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    process.waitFor(10, TimeUnit.SECONDS);
                }
            }
        }
    }

    private Gateway serve(String name, int portGroup, String alua, String image) throws Exception {
        return serve(name, portGroup, alua, image, name);
    }

    /** {@code run} names this run's admin socket: a killed gateway leaves its socket file behind. */
    private Gateway serve(String name, int portGroup, String alua, String image, String run) throws Exception {
        Path config = dir.resolve(name + ".json");
        Files.writeString(config, """
                {
                  "session": { "nop_in_interval_ms": 0 },
                  "gateway": { "name": "%s", "port_group": %d, "alua": "%s" },
                  "backstores": { "rbd0": { "type": "rbd", "pool": "rbd", "image": "%s", "conf": "%s" } },
                  "targets": [ { "name": "%s", "luns": [ { "lun": 0, "backstore": "rbd0" } ] } ]
                }
                """.formatted(name, portGroup, alua, image, cluster.resolve("ceph.conf"), TARGET));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-Xmx256m", "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), "io.hostwide.cli.Main", "serve",
                "--config", config.toString(), "--listen", "127.0.0.1:0",
                "--admin-socket", dir.resolve(run + ".sock").toString()).redirectErrorStream(true).start();
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try (var in = p.inputReader(StandardCharsets.UTF_8)) {
                in.lines().forEach(l -> {
                    lines.add(l);
                    System.out.println("[" + name + "] " + l);
                });
            } catch (IOException | java.io.UncheckedIOException e) { // the process was killed
                lines.add("read failed: " + e);
            }
        });
        reader.setDaemon(true);
        reader.start();
        List<String> seen = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (System.nanoTime() < deadline) {
            String line = lines.poll(1, TimeUnit.SECONDS);
            if (line != null) {
                seen.add(line);
                Matcher m = Pattern.compile("listening on 127\\.0\\.0\\.1:(\\d+);").matcher(line);
                if (m.find()) {
                    return new Gateway(name, p, Integer.parseInt(m.group(1)), lines);
                }
            }
            if (!p.isAlive()) {
                break;
            }
        }
        p.destroyForcibly();
        throw new AssertionError(name + " did not start:\n" + String.join("\n", seen));
    }

    private static byte[] stamp(String image, String writer, long lba) {
        byte[] b = new byte[StampClient.BLOCK];
        byte[] text = ("hostwide failover image=" + image + " writer=" + writer + " lba=" + lba + "\n")
                .getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) (lba * 31 + i + writer.hashCode());
        }
        System.arraycopy(text, 0, b, 0, text.length);
        return b;
    }

    /** TEST UNIT READY until no unit attention is left (power on, ALUA state changed); Standby answers NOT READY. */
    private static void clearUnitAttentions(StampClient c) throws IOException {
        for (int i = 0; i < 20; i++) {
            StampClient.Result r = c.testUnitReady();
            if (r.good() || r.senseKey() == 0x2) {
                return;
            }
        }
        throw new AssertionError("TEST UNIT READY never succeeded");
    }

    /** One command of {@link StampClient}. */
    private interface Call {
        StampClient.Result run() throws IOException;
    }

    /**
     * A command, again while it reports a unit attention: another gateway registering or the lock moving raises
     * ASYMMETRIC ACCESS STATE CHANGED at any time, and an initiator retries the command after it.
     */
    private static StampClient.Result pastUnitAttentions(Call call) throws IOException {
        StampClient.Result r = call.run();
        for (int i = 0; i < 10 && r.status() == StampClient.CHECK_CONDITION && r.senseKey() == 0x6; i++) {
            r = call.run();
        }
        return r;
    }

    /** REPORT TARGET PORT GROUPS as group id → "state:rtpi,rtpi". */
    private static Map<Integer, String> groups(StampClient c) throws IOException {
        StampClient.Result r = pastUnitAttentions(c::reportTargetPortGroups);
        assertThat(r.good()).as("REPORT TARGET PORT GROUPS: %s", r).isTrue();
        byte[] d = r.data();
        int len = ((d[0] & 0xFF) << 24 | (d[1] & 0xFF) << 16 | (d[2] & 0xFF) << 8 | (d[3] & 0xFF)) + 4;
        Map<Integer, String> out = new TreeMap<>();
        for (int p = 4; p + 8 <= Math.min(len, d.length); ) {
            int state = d[p] & 0x0F;
            int id = (d[p + 2] & 0xFF) << 8 | (d[p + 3] & 0xFF);
            int count = d[p + 7] & 0xFF;
            List<Integer> ports = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                int q = p + 8 + 4 * i;
                ports.add((d[q + 2] & 0xFF) << 8 | (d[q + 3] & 0xFF));
            }
            out.put(id, state + ":" + ports);
            p += 8 + 4 * count;
        }
        return out;
    }

    /**
     * Device Identification VPD (83h) designators as "association/type" → value: text for SCSI name strings
     * (code set 3), hex otherwise (SPC-4 §7.8.6).
     */
    private static Map<String, String> designators(StampClient c) throws IOException {
        StampClient.Result r = pastUnitAttentions(() -> c.vpd(0x83));
        assertThat(r.good()).as("INQUIRY VPD 83h: %s", r).isTrue();
        byte[] d = r.data();
        int len = Math.min(d.length, ((d[2] & 0xFF) << 8 | (d[3] & 0xFF)) + 4);
        Map<String, String> out = new TreeMap<>();
        for (int p = 4; p + 4 <= len; ) {
            int codeSet = d[p] & 0x0F;
            int association = (d[p + 1] >> 4) & 0x3;
            int type = d[p + 1] & 0x0F;
            int n = d[p + 3] & 0xFF;
            byte[] v = Arrays.copyOfRange(d, p + 4, Math.min(len, p + 4 + n));
            String value;
            if (codeSet == 3) {
                value = new String(v, StandardCharsets.UTF_8).replace("\0", "");
            } else {
                StringBuilder hex = new StringBuilder();
                for (byte b : v) {
                    hex.append(String.format("%02x", b));
                }
                value = hex.toString();
            }
            out.put(association + "/" + type, value);
            p += 4 + n;
        }
        return out;
    }

    /** Polls REPORT TARGET PORT GROUPS until both gateways' groups are listed with their ports. */
    private static Map<Integer, String> bothGroups(StampClient c) throws Exception {
        Map<Integer, String> g = Map.of();
        for (int i = 0; i < 100; i++) {
            g = groups(c);
            if (g.getOrDefault(1, "").endsWith("[1]") && g.getOrDefault(2, "").endsWith("[2]")) {
                return g;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("REPORT TARGET PORT GROUPS never listed both gateways: " + g);
    }

    /**
     * Writes {@code block} at {@code lba} through B until it is acknowledged, as a multipath initiator would:
     * retries on unit attentions, on NOT READY / TRANSITIONING and BUSY; in explicit mode, a Standby answer makes
     * it ask SET TARGET PORT GROUPS for B's group (2) first.
     */
    private static void writeUntilGood(StampClient c, long lba, byte[] block) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        List<String> seen = new ArrayList<>();
        while (System.nanoTime() < deadline) {
            StampClient.Result r = c.write(lba, block);
            if (r.good()) {
                return;
            }
            seen.add(r.toString());
            if (r.status() == StampClient.CHECK_CONDITION && r.senseKey() == 0x2 && r.asc() == 0x04
                    && r.ascq() == 0x0B) {
                StampClient.Result s = c.setTargetPortGroup(2, AO);
                seen.add("STPG: " + s);
            } else if (!(r.status() == StampClient.CHECK_CONDITION && (r.senseKey() == 0x6 || r.senseKey() == 0x2))
                    && r.status() != 0x08) {
                throw new AssertionError("write at " + lba + " through B: " + r + " after " + seen);
            } else if (r.senseKey() == 0x2) {
                Thread.sleep(10);
            }
        }
        throw new AssertionError("no write through B succeeded in 90 s: " + seen);
    }

    private static void assertStamp(StampClient c, long lba, byte[] expected, String what) throws IOException {
        StampClient.Result r = pastUnitAttentions(() -> c.read(lba));
        assertThat(r.good()).as("read %d: %s", lba, r).isTrue();
        if (!Arrays.equals(r.data(), expected)) {
            String got = new String(r.data(), 0, 60, StandardCharsets.US_ASCII).split("\n")[0];
            throw new AssertionError(what + " at LBA " + lba + " lost: read back '" + got + "'");
        }
    }

    @Test
    void implicitFailoverKeepsEveryAcknowledgedWrite() throws Exception {
        failover("gwi", "implicit");
    }

    @Test
    void explicitFailoverKeepsEveryAcknowledgedWrite() throws Exception {
        failover("gwe", "explicit");
    }

    private void failover(String image, String alua) throws Exception {
        Gateway a = serve("gw-a", 1, alua, image);
        Gateway b = serve("gw-b", 2, alua, image);
        int nonOwner = alua.equals("implicit") ? ANO : STANDBY;
        try {
            List<Long> acked = new ArrayList<>();
            AtomicLong inFlight = new AtomicLong(-1);
            String serialA;
            try (StampClient ca = new StampClient(a.portal(), TARGET, 5000)) {
                clearUnitAttentions(ca);
                Map<Integer, String> viaA = bothGroups(ca);
                assertThat(viaA).containsEntry(1, AO + ":[1]").containsEntry(2, nonOwner + ":[2]");
                serialA = new String(pastUnitAttentions(() -> ca.vpd(0x80)).data(), StandardCharsets.US_ASCII);
                Map<String, String> idA = designators(ca);
                try (StampClient cb = new StampClient(b.portal(), TARGET, 5000)) {
                    clearUnitAttentions(cb);
                    assertThat(bothGroups(cb)).as("REPORT TARGET PORT GROUPS alike on both gateways")
                            .isEqualTo(viaA);
                    assertThat(new String(pastUnitAttentions(() -> cb.vpd(0x80)).data(), StandardCharsets.US_ASCII))
                            .as("one LU identity (unit serial) on both gateways").isEqualTo(serialA);
                    Map<String, String> idB = designators(cb);
                    System.out.println("RTPG " + alua + " (group=state:[relative ports]; 0 = A/O, 1 = A/N-O, 2 = S): "
                            + viaA + "\nVPD 83h via gw-a: " + idA + "\nVPD 83h via gw-b: " + idB);
                    // SPC-4 §7.8.6: association 0 = the LU, 1 = the target port; type 3 NAA, 4 relative target
                    // port, 5 target port group, 8 SCSI name string
                    assertThat(idB.get("0/3")).as("NAA designator of the LU").isNotNull().isEqualTo(idA.get("0/3"));
                    assertThat(idA.get("1/4")).as("relative target port of gw-a").endsWith("0001");
                    assertThat(idB.get("1/4")).as("relative target port of gw-b").endsWith("0002");
                    assertThat(idA.get("1/5")).as("target port group of gw-a").endsWith("0001");
                    assertThat(idB.get("1/5")).as("target port group of gw-b").endsWith("0002");
                    assertThat(idA.get("1/8")).as("target port name of gw-a").isEqualTo(TARGET + ",t,0x0001");
                    assertThat(idB.get("1/8")).as("target port name of gw-b").isEqualTo(TARGET + ",t,0x0002");
                }
                Thread writer = new Thread(() -> {
                    try {
                        for (long lba = 0; lba < 20_000; lba++) {
                            inFlight.set(lba);
                            long at = lba;
                            StampClient.Result r = pastUnitAttentions(() -> ca.write(at, stamp(image, "A", at)));
                            assertThat(r.good()).as("write %d through A: %s", lba, r).isTrue();
                            synchronized (acked) {
                                acked.add(lba);
                            }
                        }
                    } catch (IOException e) { // A is gone
                    }
                }, "writer-A");
                writer.start();
                while (true) {
                    synchronized (acked) {
                        if (acked.size() >= 200) {
                            break;
                        }
                    }
                    assertThat(writer.isAlive()).as("writer through A stopped early").isTrue();
                    Thread.sleep(5);
                }
                long killed = System.nanoTime();
                a.process().destroyForcibly(); // SIGKILL, to the PID this test started
                writer.join(30_000);
                assertThat(writer.isAlive()).isFalse();
                long firstB = inFlight.get(); // the write in flight when A died: B overwrites it first
                try (StampClient cb = new StampClient(b.portal(), TARGET, 5000)) {
                    writeUntilGood(cb, firstB, stamp(image, "B", firstB));
                    long failoverMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
                    String line = "FAILOVER " + alua + ": SIGKILL of gw-a to the first write through gw-b acknowledged: "
                            + failoverMillis + " ms (" + acked.size() + " writes acknowledged by gw-a)";
                    System.out.println(line);
                    Files.writeString(Path.of("target", "gateway-failover.txt"), line + "\n",
                            java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
                    for (long lba = firstB + 1; lba < firstB + 100; lba++) { // the takeover's UA comes first
                        writeUntilGood(cb, lba, stamp(image, "B", lba));
                    }
                    for (long lba : acked) {
                        assertStamp(cb, lba, stamp(image, "A", lba), "a write acknowledged by gw-a");
                    }
                    for (long lba = firstB; lba < firstB + 100; lba++) {
                        assertStamp(cb, lba, stamp(image, "B", lba), "a write acknowledged by gw-b");
                    }
                    Map<Integer, String> after = groups(cb);
                    // the dead gateway's group stays non-optimized until B sees its client gone from the image's
                    // watchers (the blocklist or the watch timeout), then Offline (aKilledGatewayIsReportedOffline):
                    // which one this reads depends on how long the writes above took
                    assertThat(after).containsEntry(2, AO + ":[2]");
                    assertThat(after.get(1)).as("gw-a's group after its death").isIn(nonOwner + ":[1]",
                            OFFLINE + ":[1]");
                }
            }
        } finally {
            a.stop();
            b.stop();
        }
    }

    @Test
    void aFrozenOwnersLateWriteNeverLands() throws Exception {
        String image = "gwf";
        Gateway a = serve("gw-a", 1, "implicit", image);
        Gateway b = serve("gw-b", 2, "implicit", image);
        try {
            long late = 50;
            try (StampClient ca = new StampClient(a.portal(), TARGET, 3000)) {
                clearUnitAttentions(ca);
                for (long lba = 0; lba < late; lba++) {
                    long at = lba;
                    StampClient.Result r = pastUnitAttentions(() -> ca.write(at, stamp(image, "A", at)));
                    assertThat(r.good()).as("write %d through A: %s", lba, r).isTrue();
                }
                a.signal("STOP", 'T'); // a partitioned owner: alive, holding the lock, answering nothing
                try {
                    StampClient.Result r = ca.write(late, stamp(image, "A-late", late));
                    throw new AssertionError("a frozen gateway answered: " + r);
                } catch (IOException expected) { // the write waits in A's socket
                }
            }
            // B's first write waits for the handover A never answers, then for the lock break and the blocklist
            // (mon commands): seconds on a loaded machine, so a SCSI command timeout's patience, not 5 s
            try (StampClient cb = new StampClient(b.portal(), TARGET, 30_000)) {
                clearUnitAttentions(cb);
                writeUntilGood(cb, late, stamp(image, "B", late)); // breaks A's lock: A is blocklisted
                a.signal("CONT", 'S'); // A wakes up and carries out the write it had received
                boolean refused = false;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (!refused && System.nanoTime() < deadline) {
                    String l = a.lines().poll(500, TimeUnit.MILLISECONDS);
                    refused = l != null && (l.contains("ESHUTDOWN") || l.contains("EBLOCKLISTED")
                            || l.contains("blocklist"));
                }
                Thread.sleep(2000); // time for a late write to land, if fencing failed
                for (long lba = 0; lba < late; lba++) {
                    assertStamp(cb, lba, stamp(image, "A", lba), "a write acknowledged by gw-a");
                }
                assertStamp(cb, late, stamp(image, "B", late), "gw-b's write over the frozen gateway's late write");
                System.out.println("FENCING: gw-a's late write after SIGCONT "
                        + (refused ? "was refused (its log names the blocklist)" : "left no trace in its log")
                        + "; gw-b's block is intact");
            }
        } finally {
            a.process().destroyForcibly();
            a.process().waitFor(10, TimeUnit.SECONDS);
            b.stop();
        }
    }

    /** Polls REPORT TARGET PORT GROUPS through {@code c} until {@code done} holds; the last answer otherwise. */
    private static Map<Integer, String> groupsUntil(StampClient c, java.util.function.Predicate<Map<Integer, String>> done,
                                                    int seconds) throws Exception {
        Map<Integer, String> g = Map.of();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            g = groups(c);
            if (done.test(g)) {
                return g;
            }
            Thread.sleep(100);
        }
        return g;
    }

    /**
     * Issue 16, gateway lifecycle: a gateway stopped cleanly (SIGTERM) leaves the shared table and, as the owner,
     * releases the lock: the survivor stops listing its group and becomes Active/Optimized by itself, before any
     * write through it.
     */
    @Test
    void aCleanlyStoppedOwnerLeavesAndHandsOver() throws Exception {
        Gateway a = serve("gw-a", 1, "explicit", "gwl");
        Gateway b = serve("gw-b", 2, "explicit", "gwl");
        try (StampClient cb = new StampClient(b.portal(), TARGET, 5000)) {
            clearUnitAttentions(cb);
            assertThat(bothGroups(cb)).containsEntry(1, AO + ":[1]").containsEntry(2, STANDBY + ":[2]");
            a.stop();
            Map<Integer, String> g = groupsUntil(cb, m -> !m.containsKey(1) && (AO + ":[2]").equals(m.get(2)), 30);
            System.out.println("RTPG through gw-b after gw-a stopped cleanly: " + g);
            assertThat(g).as("gw-a's group gone, gw-b Active/Optimized with no STPG").doesNotContainKey(1)
                    .containsEntry(2, AO + ":[2]");
            StampClient.Result w = pastUnitAttentions(() -> cb.write(7, stamp("gwl", "B", 7)));
            System.out.println("first write through gw-b after the hand-over: " + w);
            writeUntilGood(cb, 7, stamp("gwl", "B", 7));
            assertStamp(cb, 7, stamp("gwl", "B", 7), "gw-b's write after the hand-over");
        } finally {
            a.stop();
            b.stop();
        }
    }

    /**
     * Issue 16, gateway lifecycle: a SIGKILLed owner is listed Offline (0xE) by the survivor once its client has
     * left the image (here at once: the takeover blocklists it, which ends its watch).
     */
    @Test
    void aKilledGatewayIsReportedOffline() throws Exception {
        Gateway a = serve("gw-a", 1, "implicit", "gwk");
        Gateway b = serve("gw-b", 2, "implicit", "gwk");
        try (StampClient cb = new StampClient(b.portal(), TARGET, 5000)) {
            clearUnitAttentions(cb);
            bothGroups(cb);
            a.process().destroyForcibly(); // SIGKILL, to the PID this test started
            a.process().waitFor(10, TimeUnit.SECONDS);
            writeUntilGood(cb, 3, stamp("gwk", "B", 3)); // the takeover breaks (and blocklists) gw-a's lock
            Map<Integer, String> g = groupsUntil(cb, m -> ("14:[1]").equals(m.get(1)), 60);
            System.out.println("RTPG through gw-b after gw-a was killed: " + g);
            assertThat(g).containsEntry(1, "14:[1]").containsEntry(2, AO + ":[2]");
        } finally {
            a.stop();
            b.stop();
        }
    }

    @Test
    void aRestartedGatewayKeepsTheReservationAptpl0() throws Exception {
        reservationSurvivesRestart("gwr0", false);
    }

    @Test
    void aRestartedGatewayKeepsTheReservationAptpl1() throws Exception {
        reservationSurvivesRestart("gwr1", true);
    }

    private static final String INITIATOR_X = "iqn.2026-12.io.hostwide:pr-x";
    private static final String INITIATOR_Y = "iqn.2026-12.io.hostwide:pr-y";
    private static final int RESERVATION_CONFLICT = 0x18;

    /** PR OUT, again after unit attentions. */
    private static StampClient.Result prOut(StampClient c, int action, int type, long key, long sakey, boolean aptpl)
            throws IOException {
        return pastUnitAttentions(() -> c.persistentReserveOut(action, type, key, sakey, aptpl));
    }

    /** READ RESERVATION as "key/type", or "none". */
    private static String reservation(StampClient c) throws IOException {
        StampClient.Result r = pastUnitAttentions(c::readReservation);
        assertThat(r.good()).as("READ RESERVATION: %s", r).isTrue();
        byte[] d = r.data();
        int len = (d[4] & 0xFF) << 24 | (d[5] & 0xFF) << 16 | (d[6] & 0xFF) << 8 | (d[7] & 0xFF);
        if (len == 0) {
            return "none";
        }
        long key = 0;
        for (int i = 0; i < 8; i++) {
            key = key << 8 | (d[8 + i] & 0xFF);
        }
        return Long.toHexString(key) + "/" + (d[21] & 0x0F);
    }

    /** A write until it ends otherwise than a unit attention, NOT READY or BUSY (an ALUA takeover under way). */
    private static StampClient.Result writePastTransitions(StampClient c, long lba, byte[] block) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        StampClient.Result r;
        do {
            r = c.write(lba, block);
            if (r.status() == StampClient.CHECK_CONDITION && (r.senseKey() == 0x6 || r.senseKey() == 0x2)
                    || r.status() == 0x08) {
                Thread.sleep(10);
                continue;
            }
            return r;
        } while (System.nanoTime() < deadline);
        return r;
    }

    /**
     * Issue 16, acceptance: "a gateway restarted in the middle of a reservation keeps it". Initiator X registers
     * and reserves (Write Exclusive) through gw-a; gw-a is SIGKILLed and started again with the same config; the
     * reservation is still there through gw-a and gw-b, X still writes through gw-a, and initiator Y, registered
     * through gw-b, still gets RESERVATION CONFLICT on both gateways.
     */
    private void reservationSurvivesRestart(String image, boolean aptpl) throws Exception {
        Gateway a = serve("gw-a", 1, "implicit", image);
        Gateway b = serve("gw-b", 2, "implicit", image);
        Gateway a2 = null;
        long keyX = 0xAAAA0000L + (aptpl ? 1 : 0);
        long keyY = 0xBBBB0000L;
        try {
            try (StampClient x = new StampClient(a.portal(), TARGET, 5000, INITIATOR_X)) {
                clearUnitAttentions(x);
                assertThat(prOut(x, 0, 0, 0, keyX, aptpl).good()).as("REGISTER through gw-a").isTrue();
                assertThat(prOut(x, 1, 1, keyX, 0, false).good()).as("RESERVE through gw-a").isTrue();
                assertThat(reservation(x)).isEqualTo(Long.toHexString(keyX) + "/1");
            }
            a.process().destroyForcibly(); // SIGKILL, to the PID this test started
            a.process().waitFor(10, TimeUnit.SECONDS);
            a2 = serve("gw-a", 1, "implicit", image, "gw-a-restarted");
            try (StampClient x = new StampClient(a2.portal(), TARGET, 5000, INITIATOR_X);
                 StampClient yb = new StampClient(b.portal(), TARGET, 5000, INITIATOR_Y)) {
                clearUnitAttentions(x);
                clearUnitAttentions(yb);
                assertThat(reservation(x)).as("through the restarted gw-a").isEqualTo(Long.toHexString(keyX) + "/1");
                assertThat(reservation(yb)).as("through gw-b").isEqualTo(Long.toHexString(keyX) + "/1");
                assertThat(prOut(yb, 0, 0, 0, keyY, false).good()).as("Y registers through gw-b").isTrue();
                StampClient.Result w = writePastTransitions(yb, 9, stamp(image, "Y", 9));
                assertThat(w.status()).as("Y's write through gw-b: %s", w).isEqualTo(RESERVATION_CONFLICT);
                StampClient.Result wx = writePastTransitions(x, 9, stamp(image, "X", 9));
                assertThat(wx.good()).as("X (the holder) writes through the restarted gw-a: %s", wx).isTrue();
                try (StampClient ya = new StampClient(a2.portal(), TARGET, 5000, INITIATOR_Y)) {
                    clearUnitAttentions(ya);
                    StampClient.Result w2 = writePastTransitions(ya, 9, stamp(image, "Y", 9));
                    assertThat(w2.status()).as("Y's write through gw-a: %s", w2).isEqualTo(RESERVATION_CONFLICT);
                }
                assertStamp(yb, 9, stamp(image, "X", 9), "the holder's write");
            }
        } finally {
            if (a2 != null) {
                a2.stop();
            }
            a.stop();
            b.stop();
        }
    }
}
