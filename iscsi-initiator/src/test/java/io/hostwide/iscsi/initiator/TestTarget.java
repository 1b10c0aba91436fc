package io.hostwide.iscsi.initiator;

import io.hostwide.iscsi.login.ChapPolicy;
import io.hostwide.iscsi.login.NegotiationPolicy;
import io.hostwide.iscsi.server.IscsiTargetServer;
import io.hostwide.tcm.TargetCore;
import io.hostwide.tcm.backstore.RamBackstore;
import io.hostwide.tcm.lu.DeviceAttributes;
import io.hostwide.tcm.port.ScsiTarget;
import io.hostwide.tcm.port.TargetPort;
import java.net.InetSocketAddress;

/**
 * An in-process iSCSI target for initiator tests: one target with a RAM LUN 0 (and optionally LUN 1), on a free
 * loopback port. {@link #restart()} closes the server (every connection drops) and starts a new one on the same
 * port over the same target core, so the data survives, as a target daemon restart would keep its disks.
 */
final class TestTarget implements AutoCloseable {
    static final String IQN = "iqn.2026-12.io.hostwide:target0";

    private final TargetCore core = new TargetCore();
    private final TargetPort port;
    private final ChapPolicy chap;
    private final NegotiationPolicy policy;
    private final int queueDepth;
    private long nopInMillis = 15_000;
    private IscsiTargetServer server;
    private int tcpPort;

    TestTarget(ChapPolicy chap, NegotiationPolicy policy, int queueDepth, long lunBytes) throws Exception {
        this.chap = chap;
        this.policy = policy;
        this.queueDepth = queueDepth;
        ScsiTarget t = core.addTarget(IQN);
        port = core.addPort(t, 1, 5);
        port.addLun(0, core.addDevice("ram0", new RamBackstore(lunBytes, 512), new DeviceAttributes()));
        port.demoMode(true, false);
        start(0);
    }

    TestTarget() throws Exception {
        this(ChapPolicy.NONE, NegotiationPolicy.defaults(), 128, 64L << 20);
    }

    /** Binds {@code p} (0: any); a just-closed listener may hold its port briefly (NIO defers the close). */
    private void start(int p) throws Exception {
        for (int attempt = 0; ; attempt++) {
            try {
                bind(p);
                return;
            } catch (java.net.BindException e) {
                if (attempt == 100) {
                    throw e;
                }
                Thread.sleep(20);
            }
        }
    }

    private void bind(int p) throws Exception {
        server = IscsiTargetServer.builder(core).export(port, chap, "ram0").negotiation(policy).queueDepth(queueDepth)
                .nopIn(nopInMillis, Math.max(nopInMillis, 500)).portal(new InetSocketAddress("127.0.0.1", p)).build();
        try {
            server.start();
        } catch (java.io.IOException e) {
            server.close();
            throw e;
        }
        tcpPort = server.boundAddresses().get(0).getPort();
    }

    /** Restarts the server with target NOP-In pings every {@code millis} on idle connections. */
    void pingEvery(long millis) throws Exception {
        nopInMillis = millis;
        server.close();
        start(tcpPort);
    }

    int port() {
        return tcpPort;
    }

    String url() {
        return "iscsi://127.0.0.1:" + tcpPort + "/" + IQN + "/0";
    }

    InitiatorConfig config() {
        return new InitiatorConfig(IscsiUrl.parse(url()));
    }

    /** Stops the server (connections drop) and starts it again on the same port after {@code downMillis}. */
    void restart(long downMillis) throws Exception {
        server.close();
        Thread.sleep(downMillis);
        start(tcpPort);
    }

    void stop() {
        server.close();
    }

    @Override
    public void close() {
        server.close();
        core.close();
    }
}
