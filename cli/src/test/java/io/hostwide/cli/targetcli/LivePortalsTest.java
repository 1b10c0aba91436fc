package io.hostwide.cli.targetcli;

import com.fasterxml.jackson.databind.JsonNode;
import io.hostwide.blk.BlkStatus;
import io.hostwide.blk.ReqOp;
import io.hostwide.blk.api.BlockDevice;
import io.hostwide.blk.api.BlockDevices;
import io.hostwide.blk.api.SubmitHandle;
import io.hostwide.management.AdminSocket;
import io.hostwide.management.api.JsonRpc;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Portals created and deleted live through {@code hostwide targetcli} (LIO's {@code tpg1/portals create|delete}) on
 * a serve that takes its portals from its configuration (no --listen): real clients (libiscsi-bin) log in through
 * the new portal and see it in SendTargets; after the delete new connections are refused while sessions go on — one
 * through the other portal and one through the deleted portal itself, as LIO keeps sessions when a portal is deleted
 * (iscsit_tpg_del_network_portal closes the listener and the logins in progress only). Each change is written back.
 */
@Timeout(180)
class LivePortalsTest {
    private static final String T = "iqn.2026-12.io.hostwide:portals";

    @TempDir
    Path dir;
    private Served s;

    @AfterEach
    void stop() {
        if (s != null) {
            s.close();
        }
    }

    /** A port free now (the kernel's next ephemeral one, released at once). */
    private static int freePort() throws IOException {
        try (ServerSocket ss = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return ss.getLocalPort();
        }
    }

    private Path config(int port, String auth) throws IOException {
        Path c = dir.resolve("serve.json");
        Files.writeString(c, """
                { "portals": ["127.0.0.1:%d"],
                  "backstores": { "ram0": { "type": "ram", "size": "16m" } },
                  "targets": [ { "name": "%s", %s"luns": [ { "lun": 0, "backstore": "ram0" } ] } ] }
                """.formatted(port, T, auth));
        return c;
    }

    private static void io(SubmitHandle h, ReqOp op, ByteBuffer buf) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(1);
        BlkStatus[] st = new BlkStatus[1];
        h.submit(op, 0, buf.remaining(), buf, (ud, status) -> {
            st[0] = status;
            done.countDown();
        }, 0);
        assertThat(done.await(30, TimeUnit.SECONDS)).as(op + " completed").isTrue();
        assertThat(st[0]).as(op + " status").isEqualTo(BlkStatus.OK);
    }

    /** Writes {@code fill} to LBA 0 and reads it back through the session of {@code dev}. */
    private static void roundTrip(BlockDevice dev, byte fill) throws InterruptedException {
        SubmitHandle h = dev.openHandle();
        ByteBuffer out = ByteBuffer.allocate(4096);
        while (out.hasRemaining()) {
            out.put(fill);
        }
        io(h, ReqOp.WRITE, out.flip());
        ByteBuffer in = ByteBuffer.allocate(4096);
        io(h, ReqOp.READ, in);
        for (int i = 0; i < 4096; i++) {
            assertThat(in.get(i)).as("byte " + i).isEqualTo(fill);
        }
    }

    private static BlockDevice session(int port) {
        return BlockDevices.open("iscsi:url=iscsi://127.0.0.1:" + port + "/" + T + "/0");
    }

    @Test
    void aPortalCreatedLiveServesAndOnceDeletedRefusesWhileSessionsGoOn() throws Exception {
        int p1 = freePort();
        Path cfg = config(p1, "");
        s = Served.startOnConfigPortals(cfg, dir.resolve("a.sock"));
        int p2 = freePort();
        String portals = "/iscsi/" + T + "/tpg1/portals";
        try (BlockDevice onP1 = session(p1)) {
            roundTrip(onP1, (byte) 1);

            // targetcli-fb ui_target.py UIPortals.ui_command_create: "Created network portal %s:%d."
            Served.Run created = s.oneShot(portals, "create", "127.0.0.1", Integer.toString(p2));
            assertThat(created.status()).as(created.err()).isZero();
            assertThat(created.out()).isEqualTo("Created network portal 127.0.0.1:" + p2 + ".\n");
            assertThat(s.oneShot(portals, "create", "ip_address=127.0.0.1", "ip_port=" + p2).out())
                    .as("the same portal again").isEqualTo("Network portal 127.0.0.1:" + p2 + " already exists; "
                            + "unchanged.\n");
            assertThat(Files.readString(cfg)).as("written back").contains("\"127.0.0.1:" + p1 + "\"",
                    "\"127.0.0.1:" + p2 + "\"");

            // a real client logs in through the new portal; SendTargets through the old one lists both
            Served.Run inq = Served.libiscsi("iscsi-inq", "iscsi://127.0.0.1:" + p2 + "/" + T + "/0");
            assertThat(inq.status()).as(inq.out()).isZero();
            assertThat(Served.iscsiLs(p1)).contains("Target:" + T + " Portal:127.0.0.1:" + p1 + ",1",
                    "Target:" + T + " Portal:127.0.0.1:" + p2 + ",1");
            try (BlockDevice onP2 = session(p2)) {
                roundTrip(onP2, (byte) 2);

                // targetcli-fb ui_target.py UIPortals.ui_command_delete: "Deleted network portal %s:%d" (no stop)
                Served.Run deleted = s.oneShot(portals, "delete", "127.0.0.1", Integer.toString(p2));
                assertThat(deleted.status()).as(deleted.err()).isZero();
                assertThat(deleted.out()).isEqualTo("Deleted network portal 127.0.0.1:" + p2 + "\n");

                assertThatThrownBy(() -> SocketChannel.open(new InetSocketAddress("127.0.0.1", p2)).close())
                        .as("new connections to the deleted portal are refused").isInstanceOf(IOException.class);
                Served.Run refused = Served.libiscsi("iscsi-inq", "iscsi://127.0.0.1:" + p2 + "/" + T + "/0");
                assertThat(refused.status()).as(refused.out()).isNotZero();
                assertThat(Served.iscsiLs(p1)).contains("Portal:127.0.0.1:" + p1 + ",1")
                        .doesNotContain("127.0.0.1:" + p2);

                roundTrip(onP2, (byte) 3); // logged in through the deleted portal: goes on, as with LIO
                roundTrip(onP1, (byte) 4); // through the other portal: never disturbed
            }
            assertThat(s.oneShot(portals, "delete", "127.0.0.1", Integer.toString(p2)).out())
                    .isEqualTo("No network portal 127.0.0.1:" + p2 + "; nothing to delete.\n");
            roundTrip(onP1, (byte) 5);
        }
        assertThat(Files.readString(cfg)).doesNotContain("127.0.0.1:" + p2);

        // a restart from the file written back listens where the running serve did
        s.close();
        s = Served.startOnConfigPortals(cfg, dir.resolve("b.sock"));
        assertThat(s.assembly.boundAddresses()).containsExactly(new InetSocketAddress("127.0.0.1", p1));
    }

    @Test
    void everyPortalMayGoAndComeBackAsOnLio() throws Exception {
        int p1 = freePort();
        Path cfg = config(p1, "");
        s = Served.startOnConfigPortals(cfg, dir.resolve("a.sock"));
        String portals = "/iscsi/" + T + "/tpg1/portals";
        assertThat(s.oneShot(portals, "delete", "127.0.0.1", Integer.toString(p1)).status()).isZero();
        assertThat(s.assembly.boundAddresses()).isEmpty();
        assertThat(Files.readString(cfg)).contains("\"portals\" : [ ]");
        assertThat(s.oneShot("ls", portals).out()).isEqualTo("o- portals [Portals: 0]\n");
        Served.Run back = s.oneShot(portals, "create", "127.0.0.1", Integer.toString(p1));
        assertThat(back.out()).isEqualTo("Created network portal 127.0.0.1:" + p1 + ".\n");
        try (BlockDevice dev = session(p1)) {
            roundTrip(dev, (byte) 6);
        }
    }

    @Test
    void aPortalInUseByAnotherProcessIsAMachineReadableErrorNamingTheAddress() throws Exception {
        s = Served.startOnConfigPortals(config(freePort(), ""), dir.resolve("a.sock"));
        try (ServerSocket other = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            String address = "127.0.0.1:" + other.getLocalPort();
            String answer = AdminSocket.call(s.socket.path(), List.of(JsonRpc.request(1, "portal_create",
                    "{\"ip_address\":\"127.0.0.1\",\"port\":" + other.getLocalPort() + "}"))).get(0);
            JsonNode e = JsonRpc.parse(answer).path("error");
            assertThat(e.path("code").asInt()).isEqualTo(-32009);
            assertThat(e.path("data").path("reason").asText()).isEqualTo("address_in_use");
            assertThat(e.path("data").path("address").asText()).isEqualTo(address);
            assertThat(e.path("message").asText()).startsWith("cannot listen on " + address + ": ")
                    .endsWith("(another process holds it)");
            Served.Run r = s.oneShot("/iscsi/" + T + "/tpg1/portals", "create", "127.0.0.1",
                    Integer.toString(other.getLocalPort()));
            assertThat(r.status()).isEqualTo(1);
            assertThat(r.out()).isEmpty();
            assertThat(r.err()).startsWith("hostwide targetcli: address_in_use: cannot listen on " + address);
            assertThat(s.assembly.boundAddresses()).hasSize(1);
            assertThat(s.assembly.current().portals()).hasSize(1);
        }
    }

    @Test
    void aPortalBeyondLoopbackNeedsChapForEveryTarget() throws Exception {
        s = Served.startOnConfigPortals(config(freePort(), ""), dir.resolve("a.sock"));
        Served.Run r = s.oneShot("/iscsi/" + T + "/tpg1/portals", "create", "0.0.0.0", "3260");
        assertThat(r.status()).isEqualTo(1);
        assertThat(r.out()).isEqualTo("Using default IP port 3260\n");
        assertThat(r.err()).isEqualTo("hostwide targetcli: invalid: refusing to listen on 0.0.0.0:3260 with targets "
                + "that have no CHAP (" + T + "): set \"auth\" for them in --config, or pass --insecure\n");
        assertThat(s.assembly.boundAddresses()).hasSize(1);
    }
}
