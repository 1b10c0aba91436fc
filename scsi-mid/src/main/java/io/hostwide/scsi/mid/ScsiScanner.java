package io.hostwide.scsi.mid;

import io.hostwide.scsi.spec.BigEndian;
import io.hostwide.scsi.spec.LunAddress;
import io.hostwide.scsi.spec.ModePage;
import io.hostwide.scsi.spec.PeripheralDeviceType;
import io.hostwide.scsi.spec.ScsiOpcode;
import io.hostwide.scsi.spec.SenseKey;
import io.hostwide.scsi.spec.ServiceAction;
import io.hostwide.scsi.spec.VpdPage;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * scsi_scan.c + sd's revalidate: for each target id, REPORT LUNS on LUN 0 (sequential INQUIRY of LUNs
 * 0..max_lun-1 when it is not supported), then per LUN: standard INQUIRY (a connected direct-access device),
 * READ CAPACITY(16) with a fall-back to (10), and the VPD pages the LUN lists among B0h (block limits),
 * B1h (rotation rate) and B2h (provisioning). Unit attentions (power on, reset) are answered by repeating the
 * command. Each found LUN is added to the host with its {@link DeviceInfo}.
 */
public final class ScsiScanner {
    private static final int TRIES = 4;
    private static final int INQUIRY_LENGTH = 96;
    private static final int REPORT_LUNS_LENGTH = 8 + 8 * 512;

    private final ScsiHost host;
    private final long timeoutMillis;

    public ScsiScanner(ScsiHost host) {
        this.host = host;
        this.timeoutMillis = Math.min(host.template.timeoutMillis, 30_000);
    }

    /** Scans channel 0, every target id, and returns the devices added (in H:C:T:L order). */
    public List<ScsiDevice> scanHost() {
        List<ScsiDevice> found = new ArrayList<>();
        for (int id = 0; id < host.template.maxId; id++) {
            found.addAll(scanTarget(host.target(0, id)));
        }
        return found;
    }

    public List<ScsiDevice> scanTarget(ScsiTarget t) {
        List<ScsiDevice> found = new ArrayList<>();
        ScsiDevice lun0 = host.allocDevice(t, 0);
        ExecResult inq0 = run(lun0, inquiryCdb(0, false, INQUIRY_LENGTH), ScsiCmnd.DIR_FROM_DEVICE, INQUIRY_LENGTH, null);
        if (inq0.hostByte() != HostByte.DID_OK) {
            return found;   // no target at this id
        }
        int[] luns = reportLuns(lun0);
        if (luns == null) {
            luns = new int[host.template.maxLun];
            for (int i = 0; i < luns.length; i++) {
                luns[i] = i;
            }
        }
        for (int lun : luns) {
            if (lun < 0 || lun >= host.template.maxLun) {
                continue;
            }
            ScsiDevice sdev = lun == 0 ? lun0 : host.allocDevice(t, lun);
            DeviceInfo info = probe(sdev);
            if (info != null) {
                sdev.info = info;
                host.addDevice(sdev);
                found.add(sdev);
            }
        }
        return found;
    }

    /** REPORT LUNS (SPC-4 §6.33); null when the target does not support it. */
    private int[] reportLuns(ScsiDevice lun0) {
        byte[] cdb = new byte[12];
        cdb[0] = (byte) ScsiOpcode.REPORT_LUNS;
        BigEndian.put32(cdb, 6, REPORT_LUNS_LENGTH);
        ByteBuffer buf = ByteBuffer.allocate(REPORT_LUNS_LENGTH);
        ExecResult r = run(lun0, cdb, ScsiCmnd.DIR_FROM_DEVICE, REPORT_LUNS_LENGTH, buf);
        if (!r.good()) {
            return null;
        }
        byte[] b = buf.array();
        int listLength = (int) Math.min(BigEndian.u32(b, 0), REPORT_LUNS_LENGTH - 8 - r.resid());
        int n = Math.max(0, listLength / 8);
        int[] luns = new int[n];
        for (int i = 0; i < n; i++) {
            long lun = BigEndian.s64(b, 8 + 8 * i);
            luns[i] = LunAddress.decode(lun);
        }
        return luns;
    }

    /**
     * INQUIRY, READ CAPACITY and VPD of one LUN; null when no device is connected there (peripheral qualifier not
     * 0) or a disk's capacity cannot be read. Another device type (a controller at LUN 0, a tape) is kept with its
     * INQUIRY data only, as scsi_probe_and_add_lun adds every connected LUN and leaves the choice of an upper
     * driver to the caller; only direct-access devices get a disk.
     */
    DeviceInfo probe(ScsiDevice sdev) {
        ByteBuffer inq = ByteBuffer.allocate(INQUIRY_LENGTH);
        ExecResult r = run(sdev, inquiryCdb(0, false, INQUIRY_LENGTH), ScsiCmnd.DIR_FROM_DEVICE, INQUIRY_LENGTH, inq);
        if (!r.good()) {
            return null;
        }
        byte[] b = inq.array();
        int qualifier = (b[0] & 0xFF) >>> 5;
        int type = b[0] & 0x1F;
        if (qualifier != 0) {
            return null;
        }
        boolean removable = (b[1] & 0x80) != 0;
        String vendor = ascii(b, 8, 8);
        String product = ascii(b, 16, 16);
        String revision = ascii(b, 32, 4);
        if (type != PeripheralDeviceType.DIRECT_ACCESS_BLOCK) {
            return new DeviceInfo(type, vendor, product, revision, removable, 0, 0, false, 0, 0, 0, 0, 0, 0,
                    false, false, 0, false);
        }
        long[] cap = readCapacity(sdev);
        if (cap == null) {
            return null;
        }
        int lbs = (int) cap[1];
        boolean thin = cap[2] != 0;
        List<Integer> pages = supportedVpdPages(sdev);
        byte[] bl = pages.contains(VpdPage.BLOCK_LIMITS) ? vpd(sdev, VpdPage.BLOCK_LIMITS, 64) : null;
        byte[] bdc = pages.contains(VpdPage.BLOCK_DEVICE_CHARACTERISTICS) ? vpd(sdev, VpdPage.BLOCK_DEVICE_CHARACTERISTICS, 64) : null;
        byte[] lbp = pages.contains(VpdPage.LOGICAL_BLOCK_PROVISIONING) ? vpd(sdev, VpdPage.LOGICAL_BLOCK_PROVISIONING, 8) : null;
        int rotation = bdc == null ? 0 : BigEndian.u16(bdc, 4);
        int[] cache = cacheType(sdev);
        int flags = lbp == null ? 0 : lbp[VpdPage.LogicalBlockProvisioning.FLAGS] & 0xFF;
        return new DeviceInfo(type, vendor, product, revision, removable, lbs, cap[0], thin,
                bl == null ? 0 : BigEndian.u32(bl, VpdPage.BlockLimits.MAXIMUM_TRANSFER_LENGTH),
                bl == null ? 0 : BigEndian.u32(bl, VpdPage.BlockLimits.OPTIMAL_TRANSFER_LENGTH),
                bl == null ? 0 : BigEndian.u32(bl, VpdPage.BlockLimits.MAXIMUM_UNMAP_LBA_COUNT),
                bl == null ? 0 : BigEndian.u32(bl, VpdPage.BlockLimits.MAXIMUM_UNMAP_BLOCK_DESCRIPTOR_COUNT),
                bl == null ? 0 : BigEndian.u32(bl, VpdPage.BlockLimits.OPTIMAL_UNMAP_GRANULARITY),
                bl == null ? 0 : BigEndian.s64(bl, VpdPage.BlockLimits.MAXIMUM_WRITE_SAME_LENGTH),
                thin && (flags & VpdPage.LogicalBlockProvisioning.LBPU) != 0,
                thin && (flags & VpdPage.LogicalBlockProvisioning.LBPWS) != 0,
                rotation, cache[0] != 0, cache[1] != 0);
    }

    /**
     * {@code sd_read_cache_type}: MODE SENSE(10) of the caching page (DBD, current values), MODE SENSE(6) when
     * (10) is refused; {WCE, DPOFUA}. WCE is taken as on when neither answers (flushes are then sent, harmlessly),
     * DPOFUA as off (FUA then becomes a flush after the write).
     */
    private int[] cacheType(ScsiDevice sdev) {
        int len = 8 + ModePage.CACHING_LENGTH;
        byte[] c10 = new byte[10];
        c10[0] = (byte) ScsiOpcode.MODE_SENSE_10;
        c10[1] = 0x08;   // DBD
        c10[2] = (byte) ModePage.CACHING;
        BigEndian.put16(c10, 7, len);
        ByteBuffer b = ByteBuffer.allocate(len);
        ExecResult r = run(sdev, c10, ScsiCmnd.DIR_FROM_DEVICE, len, b);
        int header = ModePage.HEADER10_LENGTH;
        if (!r.good()) {
            len = 4 + ModePage.CACHING_LENGTH;
            byte[] c6 = new byte[6];
            c6[0] = (byte) ScsiOpcode.MODE_SENSE_6;
            c6[1] = 0x08;
            c6[2] = (byte) ModePage.CACHING;
            c6[4] = (byte) len;
            b = ByteBuffer.allocate(len);
            r = run(sdev, c6, ScsiCmnd.DIR_FROM_DEVICE, len, b);
            header = ModePage.HEADER6_LENGTH;
            if (!r.good()) {
                return new int[] {1, 0};
            }
        }
        byte[] d = b.array();
        int got = len - r.resid();
        boolean ten = header == ModePage.HEADER10_LENGTH;
        int deviceSpecific = d[ten ? 3 : 2] & 0xFF;
        int bdLen = ten ? BigEndian.u16(d, 6) : d[3] & 0xFF;
        int p = header + bdLen;
        int dpoFua = (deviceSpecific & ModePage.DEVICE_SPECIFIC_DPOFUA) != 0 ? 1 : 0;
        if (p + ModePage.CACHING_FLAGS >= got || (d[p] & ModePage.PAGE_CODE_MASK) != ModePage.CACHING) {
            return new int[] {1, dpoFua};   // no caching page in the answer: keep flushing
        }
        return new int[] {(d[p + ModePage.CACHING_FLAGS] & ModePage.CACHING_WCE) != 0 ? 1 : 0, dpoFua};
    }

    /** {blocks, block length, LBPME}: READ CAPACITY(16) (SBC-4 §5.20), or (10) when 16 is refused. */
    private long[] readCapacity(ScsiDevice sdev) {
        byte[] cdb = new byte[16];
        cdb[0] = (byte) ScsiOpcode.SERVICE_ACTION_IN_16;
        cdb[1] = (byte) ServiceAction.READ_CAPACITY_16;
        BigEndian.put32(cdb, 10, 32);
        ByteBuffer buf = ByteBuffer.allocate(32);
        ExecResult r = run(sdev, cdb, ScsiCmnd.DIR_FROM_DEVICE, 32, buf);
        if (r.good()) {
            byte[] b = buf.array();
            long blocks = BigEndian.s64(b, 0) + 1;
            long lbs = BigEndian.u32(b, 8);
            return validCapacity(blocks, lbs) ? new long[] {blocks, lbs, (b[14] & 0x80) != 0 ? 1 : 0} : null;
        }
        if (r.senseKey() != SenseKey.ILLEGAL_REQUEST) {
            return null;
        }
        byte[] c10 = new byte[10];
        c10[0] = (byte) ScsiOpcode.READ_CAPACITY_10;
        ByteBuffer b10 = ByteBuffer.allocate(8);
        r = run(sdev, c10, ScsiCmnd.DIR_FROM_DEVICE, 8, b10);
        if (!r.good()) {
            return null;
        }
        long blocks = BigEndian.u32(b10.array(), 0) + 1;
        long lbs = BigEndian.u32(b10.array(), 4);
        return validCapacity(blocks, lbs) ? new long[] {blocks, lbs, 0} : null;
    }

    private static boolean validCapacity(long blocks, long lbs) {
        return blocks > 0 && lbs >= 512 && lbs <= 65536 && Long.bitCount(lbs) == 1;
    }

    private List<Integer> supportedVpdPages(ScsiDevice sdev) {
        List<Integer> pages = new ArrayList<>();
        byte[] p = vpd(sdev, VpdPage.SUPPORTED_VPD_PAGES, 255);
        if (p != null) {
            int n = Math.min(BigEndian.u16(p, 2), p.length - 4);
            for (int i = 0; i < n; i++) {
                pages.add(p[4 + i] & 0xFF);
            }
        }
        return pages;
    }

    private byte[] vpd(ScsiDevice sdev, int page, int length) {
        ByteBuffer buf = ByteBuffer.allocate(length);
        ExecResult r = run(sdev, inquiryCdb(page, true, length), ScsiCmnd.DIR_FROM_DEVICE, length, buf);
        if (!r.good() || (buf.array()[1] & 0xFF) != page) {
            return null;
        }
        return buf.array();
    }

    private static byte[] inquiryCdb(int page, boolean evpd, int length) {
        byte[] cdb = new byte[6];
        cdb[0] = (byte) ScsiOpcode.INQUIRY;
        cdb[1] = (byte) (evpd ? 1 : 0);
        cdb[2] = (byte) page;
        BigEndian.put16(cdb, 3, length);
        return cdb;
    }

    /** One command, repeated while the LUN answers with a unit attention or BUSY. */
    private ExecResult run(ScsiDevice sdev, byte[] cdb, int dir, int len, ByteBuffer buf) {
        ByteBuffer b = buf == null && len > 0 ? ByteBuffer.allocate(len) : buf;
        ExecResult r = null;
        for (int i = 0; i < TRIES; i++) {
            r = host.execute(sdev, cdb, cdb.length, dir, b, len, timeoutMillis);
            boolean ua = r.hostByte() == HostByte.DID_OK && r.senseKey() == SenseKey.UNIT_ATTENTION;
            boolean busy = r.hostByte() == HostByte.DID_OK && (r.status() == 0x08 || r.status() == 0x28);
            if (!ua && !busy) {
                break;
            }
        }
        return r;
    }

    private static String ascii(byte[] b, int off, int len) {
        return new String(b, off, len, java.nio.charset.StandardCharsets.US_ASCII).strip();
    }
}
