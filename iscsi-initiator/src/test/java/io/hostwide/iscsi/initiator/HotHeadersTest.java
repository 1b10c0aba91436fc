package io.hostwide.iscsi.initiator;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostwide.iscsi.pdu.DataOut;
import io.hostwide.iscsi.pdu.ScsiCommand;
import io.hostwide.iscsi.spec.Bhs;
import java.nio.ByteBuffer;
import java.util.Arrays;
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
            int at = i % 3 == 0 ? 0 : r.nextInt(200);   // behind frames already batched in the send buffer
            ByteBuffer hot = ByteBuffer.allocate(at + Bhs.LENGTH + 8);
            for (int k = 0; k < hot.capacity(); k++) {
                hot.put(k, (byte) 0x5a);   // stale bytes must be overwritten, the neighbours' left alone
            }
            HotHeaders.scsiCommand(hot, at, fin, read, write, attr, lun, itt, edtl, cmdSn, expStatSn, cdb, cdbLen,
                    dsl);
            ByteBuffer rec = ByteBuffer.allocate(Bhs.LENGTH);
            new ScsiCommand(false, fin, read, write, attr, lun, itt, edtl, cmdSn, expStatSn,
                    ByteBuffer.wrap(cdb, 0, cdbLen), -1, ByteBuffer.allocate(dsl)).writeBhs(rec, 0);
            assertThat(Arrays.copyOfRange(hot.array(), at, at + Bhs.LENGTH)).isEqualTo(rec.array());
            assertUntouchedOutside(hot, at);
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
            int at = i % 3 == 0 ? 0 : r.nextInt(200);
            ByteBuffer hot = ByteBuffer.allocate(at + Bhs.LENGTH + 8);
            for (int k = 0; k < hot.capacity(); k++) {
                hot.put(k, (byte) 0x5a);
            }
            HotHeaders.dataOut(hot, at, fin, lun, itt, ttt, expStatSn, dataSn, off, dsl);
            ByteBuffer rec = ByteBuffer.allocate(Bhs.LENGTH);
            new DataOut(fin, lun, itt, ttt, expStatSn, dataSn, off, ByteBuffer.allocate(dsl)).writeBhs(rec, 0);
            assertThat(Arrays.copyOfRange(hot.array(), at, at + Bhs.LENGTH)).isEqualTo(rec.array());
            assertUntouchedOutside(hot, at);
        }
    }

    private static void assertUntouchedOutside(ByteBuffer hot, int at) {
        for (int k = 0; k < hot.capacity(); k++) {
            if (k < at || k >= at + Bhs.LENGTH) {
                assertThat(hot.get(k)).as("byte %d outside the BHS at %d", k, at).isEqualTo((byte) 0x5a);
            }
        }
    }
}
