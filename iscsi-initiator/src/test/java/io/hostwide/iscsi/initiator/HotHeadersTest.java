package io.hostwide.iscsi.initiator;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostwide.iscsi.pdu.DataOut;
import io.hostwide.iscsi.pdu.ScsiCommand;
import io.hostwide.iscsi.spec.Bhs;
import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The allocation-free headers are byte for byte what the PDU records write (RFC 7143 §11.3, §11.7). */
class HotHeadersTest {
    @Test
    void scsiCommandMatchesTheRecord() {
        Random r = new Random(7);
        for (int i = 0; i < 500; i++) {
            int cdbLen = 6 + r.nextInt(11);
            byte[] cdb = new byte[32];
            r.nextBytes(cdb);
            boolean fin = r.nextBoolean();
            boolean read = r.nextBoolean();
            boolean write = r.nextBoolean();
            int attr = r.nextInt(5);
            long lun = r.nextLong();
            int itt = r.nextInt(Integer.MAX_VALUE);
            int edtl = r.nextInt();
            int cmdSn = r.nextInt();
            int expStatSn = r.nextInt();
            int dsl = i < 4 ? (1 << 23) + r.nextInt(1 << 23) : r.nextInt(1 << 16);   // a few use the third byte
            ByteBuffer hot = ByteBuffer.allocate(Bhs.LENGTH);
            for (int k = 0; k < Bhs.LENGTH; k++) {
                hot.put(k, (byte) 0x5a);   // stale bytes must be overwritten
            }
            HotHeaders.scsiCommand(hot, fin, read, write, attr, lun, itt, edtl, cmdSn, expStatSn, cdb, cdbLen, dsl);
            ByteBuffer rec = ByteBuffer.allocate(Bhs.LENGTH);
            new ScsiCommand(false, fin, read, write, attr, lun, itt, edtl, cmdSn, expStatSn,
                    ByteBuffer.wrap(cdb, 0, cdbLen), -1, ByteBuffer.allocate(dsl)).writeBhs(rec, 0);
            assertThat(hot.array()).isEqualTo(rec.array());
        }
    }

    @Test
    void dataOutMatchesTheRecord() {
        Random r = new Random(8);
        for (int i = 0; i < 500; i++) {
            boolean fin = r.nextBoolean();
            long lun = r.nextLong();
            int itt = r.nextInt();
            int ttt = r.nextInt();
            int expStatSn = r.nextInt();
            int dataSn = r.nextInt();
            int off = r.nextInt();
            int dsl = i < 4 ? (1 << 23) + r.nextInt(1 << 23) : 1 + r.nextInt(1 << 16);
            ByteBuffer hot = ByteBuffer.allocate(Bhs.LENGTH);
            HotHeaders.dataOut(hot, fin, lun, itt, ttt, expStatSn, dataSn, off, dsl);
            ByteBuffer rec = ByteBuffer.allocate(Bhs.LENGTH);
            new DataOut(fin, lun, itt, ttt, expStatSn, dataSn, off, ByteBuffer.allocate(dsl)).writeBhs(rec, 0);
            assertThat(hot.array()).isEqualTo(rec.array());
        }
    }
}
