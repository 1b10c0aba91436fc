package io.hostwide.iscsi.server;

import io.hostwide.iscsi.login.ChapPolicy;
import io.hostwide.tcm.TargetCore;
import io.hostwide.tcm.backstore.RamBackstore;
import io.hostwide.tcm.lu.DeviceAttributes;
import io.hostwide.tcm.port.ScsiTarget;
import io.hostwide.tcm.port.TargetPort;
import java.net.InetSocketAddress;

/**
 * A launcher for trying the server by hand with libiscsi's tools (not a test): one target with a 1 GiB sparse RAM
 * LUN 0 on the given loopback port(s), any initiator admitted.
 * {@code java -cp ... io.hostwide.iscsi.server.DemoServer 3260 [3261]}
 */
public final class DemoServer {
    private DemoServer() {}

    public static IscsiTargetServer start(int... ports) throws Exception {
        return start(b -> { }, ports);
    }

    public static IscsiTargetServer start(java.util.function.Consumer<IscsiTargetServer.Builder> tweak, int... ports)
            throws Exception {
        return start(ChapPolicy.NONE, tweak, ports);
    }

    static IscsiTargetServer start(ChapPolicy chap, int... ports) throws Exception {
        return start(chap, b -> { }, ports);
    }

    static IscsiTargetServer start(ChapPolicy chap, java.util.function.Consumer<IscsiTargetServer.Builder> tweak,
            int... ports) throws Exception {
        TargetCore core = new TargetCore();
        ScsiTarget t = core.addTarget("iqn.2026-12.io.hostwide:target0");
        TargetPort port = core.addPort(t, 1, IscsiSession.PROTOCOL_ID_ISCSI);
        port.addLun(0, core.addDevice("ram0", new RamBackstore(1L << 30, 512),
                new DeviceAttributes().thinProvisioning(true)));
        port.demoMode(true, false);
        IscsiTargetServer.Builder b = IscsiTargetServer.builder(core).export(port, chap, "ram0");
        for (int p : ports) {
            b.portal(new InetSocketAddress("127.0.0.1", p));
        }
        tweak.accept(b);
        IscsiTargetServer server = b.build();
        server.start();
        return server;
    }

    /** Args: ports, optionally {@code chap=user:secret} and {@code mutual=user:secret}. */
    public static void main(String[] args) throws Exception {
        java.util.List<Integer> portList = new java.util.ArrayList<>();
        String[] chap = null;
        String[] mutual = null;
        for (String a : args) {
            if (a.startsWith("chap=")) {
                chap = a.substring(5).split(":", 2);
            } else if (a.startsWith("mutual=")) {
                mutual = a.substring(7).split(":", 2);
            } else {
                portList.add(Integer.parseInt(a));
            }
        }
        if (portList.isEmpty()) {
            portList.add(3260);
        }
        int[] ports = portList.stream().mapToInt(Integer::intValue).toArray();
        ChapPolicy policy = chap == null ? ChapPolicy.NONE : new ChapPolicy(
                io.hostwide.iscsi.login.ChapSecret.of(chap[0], chap[1]),
                mutual == null ? null : io.hostwide.iscsi.login.ChapSecret.of(mutual[0], mutual[1]));
        IscsiTargetServer s = start(policy, ports);
        System.out.println("listening on " + s.boundAddresses());
        Thread.currentThread().join();
    }
}
