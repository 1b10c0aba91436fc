package io.hostwide.cli.serve;

import io.hostwide.iscsi.initiator.InitiatorConfig;
import io.hostwide.iscsi.initiator.IscsiHba;
import io.hostwide.iscsi.initiator.IscsiUrl;
import io.hostwide.management.Admin;
import io.hostwide.management.TargetAssembly;
import io.hostwide.management.api.JsonRpc;
import io.hostwide.management.api.ManagementApi;
import io.hostwide.management.config.ServeConfigLoader;
import io.hostwide.scsi.mid.ExecResult;
import io.hostwide.scsi.mid.ScsiCmnd;
import io.hostwide.scsi.mid.ScsiDevice;
import io.hostwide.scsi.spec.Asc;
import io.hostwide.scsi.spec.BigEndian;
import io.hostwide.scsi.spec.ScsiOpcode;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.scsi.spec.SenseKey;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * API changes are live and disturb nobody else: an initiator doing I/O on LUN 0 while LUN 1 comes and goes sees
 * nothing but GOOD and the REPORTED LUNS DATA HAS CHANGED unit attention (SPC-4 §6.30: the LUN inventory changed);
 * a deleted LUN answers LOGICAL UNIT NOT SUPPORTED (05/25/00), as LIO's does.
 */
class LiveApiTest {
    private static final String T = "iqn.2026-12.io.hostwide:live";

    private static ExecResult read(IscsiHba hba, ScsiDevice sdev) {
        byte[] cdb = new byte[10];
        cdb[0] = (byte) ScsiOpcode.READ_10;
        BigEndian.put16(cdb, 7, 8);
        return hba.host().execute(sdev, cdb, 10, ScsiCmnd.DIR_FROM_DEVICE, ByteBuffer.allocate(4096), 4096, 10_000);
    }

    private static String line(JsonRpc rpc, String method, String params) {
        String answer = rpc.handle(JsonRpc.request(1, method, params));
        assertThat(answer).as(method + " " + params).doesNotContain("\"error\"");
        return answer;
    }

    @Test
    void ioOnLun0GoesOnWhileLun1IsAddedAndRemoved() throws Exception {
        String cfg = """
                { "backstores": { "a": { "type": "ram", "size": "4m" }, "b": { "type": "ram", "size": "4m" } },
                  "targets": [ { "name": "%s", "luns": [ { "lun": 0, "backstore": "a" } ] } ] }
                """.formatted(T);
        try (TargetAssembly a = TargetAssembly.build(ServeConfigLoader.parse("test", cfg),
                List.of(new InetSocketAddress("127.0.0.1", 0)), null)) {
            a.start();
            JsonRpc rpc = new JsonRpc(new ManagementApi(a, new Admin(a, null, null), null));
            int port = a.boundAddresses().get(0).getPort();
            try (IscsiHba hba = IscsiHba.connect(new InitiatorConfig(
                    IscsiUrl.parse("iscsi://127.0.0.1:" + port + "/" + T + "/0")))) {
                ScsiDevice lun0 = hba.disk(0).scsiDevice();
                AtomicBoolean stop = new AtomicBoolean();
                AtomicLong good = new AtomicLong();
                AtomicLong reportedLunsChanged = new AtomicLong();
                Queue<String> other = new ConcurrentLinkedQueue<>();
                Thread io = Thread.ofPlatform().start(() -> {
                    while (!stop.get()) {
                        ExecResult r = read(hba, lun0);
                        if (r.good()) {
                            good.incrementAndGet();
                        } else if (r.status() == ScsiStatus.CHECK_CONDITION && r.senseKey() == SenseKey.UNIT_ATTENTION
                                && r.ascAscq() == Asc.REPORTED_LUNS_DATA_HAS_CHANGED) {
                            reportedLunsChanged.incrementAndGet();
                        } else {
                            other.add("result " + Integer.toHexString(r.result()) + " key " + r.senseKey() + " asc "
                                    + Integer.toHexString(r.ascAscq()));
                        }
                    }
                });
                ScsiDevice lun1 = hba.host().allocDevice(lun0.target(), 1);
                for (int i = 0; i < 20; i++) {
                    line(rpc, "lun_create", "{\"target\":\"" + T + "\",\"backstore\":\"b\",\"lun\":1}");
                    // A new LUN's first commands report its unit attentions (POWER ON OCCURRED for a new nexus,
                    // the inventory change), one each; then it reads.
                    ExecResult r = read(hba, lun1);
                    for (int ua = 0; ua < 3 && r.senseKey() == SenseKey.UNIT_ATTENTION; ua++) {
                        assertThat(r.ascAscq()).isIn(0x2900, Asc.REPORTED_LUNS_DATA_HAS_CHANGED);
                        r = read(hba, lun1);
                    }
                    assertThat(r.good()).as("LUN 1 reads once added").isTrue();
                    line(rpc, "lun_delete", "{\"target\":\"" + T + "\",\"lun\":1}");
                    ExecResult gone = read(hba, lun1);
                    if (gone.senseKey() == SenseKey.UNIT_ATTENTION) {
                        gone = read(hba, lun1);
                    }
                    assertThat(gone.status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
                    assertThat(gone.senseKey()).isEqualTo(SenseKey.ILLEGAL_REQUEST);
                    assertThat(gone.ascAscq()).isEqualTo(0x2500); // LOGICAL UNIT NOT SUPPORTED
                }
                long deadline = System.nanoTime() + 30_000_000_000L; // the I/O thread must have run meanwhile
                while (good.get() < 100 && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
                stop.set(true);
                io.join();
                assertThat(other).isEmpty();
                assertThat(good.get()).isGreaterThanOrEqualTo(100);
                assertThat(reportedLunsChanged.get()).as("LUN 0's nexus was told the inventory changed").isPositive();
            }
        }
    }
}
