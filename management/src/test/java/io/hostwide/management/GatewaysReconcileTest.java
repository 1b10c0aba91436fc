package io.hostwide.management;

import io.hostwide.management.config.ServeConfig;
import io.hostwide.tcm.TargetCore;
import io.hostwide.tcm.alua.GatewayAlua;
import io.hostwide.tcm.backstore.RamBackstore;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.lu.DeviceAttributes;
import io.hostwide.tcm.port.ScsiTarget;
import io.hostwide.tcm.port.TargetPort;
import io.hostwide.tcm.spi.Backstore;
import io.hostwide.tcm.spi.SharedOwnership;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 16: LUNs a reload adds onto a shareable backstore get the shared ALUA of the LUNs present at start, and an
 * LU a reload stops exporting leaves the shared table ({@link Gateways#reconcile}), with a fake of the RBD image's
 * lock and metadata.
 */
class GatewaysReconcileTest {
    private static final ServeConfig.Gateway GATEWAY = new ServeConfig.Gateway("gw-a", 1, "implicit");

    /** The image's lock and metadata, as one gateway's client sees them. */
    static final class FakeLock implements SharedOwnership {
        String holder;
        final Map<String, String> table = new TreeMap<>();

        @Override public synchronized boolean isOwner() { return "me".equals(holder); }
        @Override public synchronized boolean anyOwner() { return holder != null; }
        @Override public synchronized void take() { holder = "me"; }
        @Override public synchronized boolean tryTake() {
            if (holder == null) {
                holder = "me";
            }
            return isOwner();
        }
        @Override public synchronized Map<String, String> entries(String prefix) {
            Map<String, String> out = new TreeMap<>();
            table.forEach((k, v) -> {
                if (k.startsWith(prefix)) {
                    out.put(k, v);
                }
            });
            return out;
        }
        @Override public synchronized void put(String key, String value) { table.put(key, value); }
        @Override public synchronized void remove(String key) { table.remove(key); }
        @Override public synchronized void release() {
            if (isOwner()) {
                holder = null;
            }
        }
        @Override public String identity() { return "fake:rbd/img"; }
    }

    /** A RAM backstore that says it can be shared between gateways, as an RBD image with exclusive-lock does. */
    static final class SharedRam implements Backstore, SharedOwnership.Source {
        final RamBackstore ram = new RamBackstore(1 << 20, 512);
        final FakeLock lock = new FakeLock();

        @Override public SharedOwnership sharedOwnership() { return lock; }
        @Override public int blockSize() { return ram.blockSize(); }
        @Override public long blockCount() { return ram.blockCount(); }
        @Override public boolean blocking() { return false; }
        @Override public void read(long lba, ByteBuffer dst) throws IOException { ram.read(lba, dst); }
        @Override public void write(long lba, ByteBuffer src, boolean fua) throws IOException { ram.write(lba, src, fua); }
        @Override public void flush() throws IOException { ram.flush(); }
        @Override public boolean supportsUnmap() { return ram.supportsUnmap(); }
        @Override public boolean unmapReturnsZeros() { return ram.unmapReturnsZeros(); }
        @Override public void unmap(long lba, long blocks) throws IOException { ram.unmap(lba, blocks); }
        @Override public long provisioningRun(long lba, long maxBlocks) throws IOException {
            return ram.provisioningRun(lba, maxBlocks);
        }
        @Override public String describe() { return "shared ram"; }
        @Override public void close() throws IOException { ram.close(); }
    }

    @Test
    void aLunAddedByAReloadGetsSharedAluaAndARemovedOneLeavesTheTable() throws Exception {
        try (TargetCore core = new TargetCore()) {
            SharedRam store = new SharedRam();
            Device d = core.addDevice("rbd0", store, new DeviceAttributes());
            ScsiTarget st = core.addTarget("iqn.2026-12.io.hostwide:gw");
            st.firstRelativePortId(1);
            TargetPort port = core.addPort(st, 1, TargetAssembly.ISCSI_PROTOCOL_ID);
            List<GatewayAlua> running = Gateways.start(GATEWAY, core, List.of(port), line -> { });
            assertThat(running).as("nothing exported at start").isEmpty();

            port.addLun(0, d); // what ConfigDiff.applyLuns does for a LUN the reload adds
            List<String> changes = new ArrayList<>();
            Gateways.reconcile(GATEWAY, List.of(port), running, changes::add);
            assertThat(running).hasSize(1);
            assertThat(running.get(0).device()).isSameAs(d);
            assertThat(port.luns().get(0).aluaGroup().id()).as("the export is in the gateway's group").isEqualTo(1);
            assertThat(running.get(0).owner()).as("nobody held the lock: taken").isTrue();
            assertThat(store.lock.table).containsKeys(GatewayAlua.GATEWAY_PREFIX + "1", GatewayAlua.OWNER_KEY);
            assertThat(changes).singleElement().asString().contains("rbd0").contains("port group 1");

            port.addLun(1, d); // a second LUN of the same LU: the same policy
            Gateways.reconcile(GATEWAY, List.of(port), running, changes::add);
            assertThat(running).hasSize(1);
            assertThat(port.luns()).allSatisfy(l -> assertThat(l.aluaGroup().id()).isEqualTo(1));

            port.removeLun(0);
            port.removeLun(1);
            changes.clear();
            Gateways.reconcile(GATEWAY, List.of(port), running, changes::add);
            assertThat(running).isEmpty();
            assertThat(changes).singleElement().asString().contains("no longer exported");
            assertThat(store.lock.table).as("left the shared table").isEmpty();
            assertThat(store.lock.holder).as("and released the lock").isNull();
        }
    }
}
