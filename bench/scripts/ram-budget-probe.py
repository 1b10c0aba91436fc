#!/usr/bin/env python3
"""Shows what an initiator gets from `hostwide serve` when the RAM budget is spent, byte for byte: the status and
sense (key/ASC/ASCQ) of a write that needs a new page, that reads and a second session still work, and that UNMAP
gives room back to another LUN. Our own initiator tools report such a write as an I/O error without the sense, and
libiscsi's installed tools do not write, hence this minimal iSCSI client (RFC 7143: no authentication, no digests,
immediate data only, one connection per session).

    bench/scripts/ram-budget-probe.py HOST:PORT TARGET_IQN

Expects LUN 0 with pages written over LBAs 0..131071 (64 MiB) and a spent budget shared with LUN 1, as after
`hostwide bench --rw write --size 128m` on LUN 0 of bench/scripts/ram-budget.json. Exit status 1 when an answer is
not the expected one.
"""
import socket
import struct
import sys

BLOCK = 512


class Session:
    """One logged-in connection: SCSI commands one at a time, their status, sense and Data-In."""

    def __init__(self, host, port, target, isid_tail):
        self.sock = socket.create_connection((host, port), timeout=30)
        self.itt = 1
        self.cmdsn = 1
        self.exp_statsn = 0
        self.login(target, isid_tail)

    def send(self, bhs, data=b""):
        pad = (-len(data)) % 4
        self.sock.sendall(bhs + data + b"\0" * pad)

    def recv_exact(self, n):
        buf = b""
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise EOFError("the target closed the connection")
            buf += chunk
        return buf

    def recv_pdu(self):
        bhs = self.recv_exact(48)
        ahs = bhs[4] * 4
        dlen = int.from_bytes(bhs[5:8], "big")
        self.recv_exact(ahs)
        data = self.recv_exact(dlen + ((-dlen) % 4))[:dlen]
        return bhs, data

    def login(self, target, isid_tail):
        stages = [
            (0, 1, {"InitiatorName": "iqn.2026-12.io.hostwide:ram-budget-probe", "SessionType": "Normal",
                    "TargetName": target, "AuthMethod": "None"}),
            (1, 3, {"HeaderDigest": "None", "DataDigest": "None", "ImmediateData": "Yes", "InitialR2T": "Yes",
                    "MaxRecvDataSegmentLength": "262144", "FirstBurstLength": "65536",
                    "MaxBurstLength": "262144", "ErrorRecoveryLevel": "0", "MaxConnections": "1"}),
        ]
        isid = bytes([0x80, 0x12, 0x34, 0x56, 0x00, isid_tail])
        tsih = 0
        for csg, nsg, keys in stages:
            text = b"".join(f"{k}={v}".encode() + b"\0" for k, v in keys.items())
            bhs = bytearray(48)
            bhs[0] = 0x43
            bhs[1] = 0x80 | (csg << 2) | nsg
            bhs[5:8] = len(text).to_bytes(3, "big")
            bhs[8:14] = isid
            bhs[14:16] = tsih.to_bytes(2, "big")
            struct.pack_into(">IHHII", bhs, 16, self.itt, 0, 0, self.cmdsn, self.exp_statsn)
            self.send(bytes(bhs), text)
            rsp, _ = self.recv_pdu()
            if rsp[0] & 0x3F != 0x23 or rsp[36] != 0:
                raise RuntimeError(f"login refused: opcode {rsp[0]:#x} status class {rsp[36]} detail {rsp[37]}")
            tsih = int.from_bytes(rsp[14:16], "big")
            self.exp_statsn = int.from_bytes(rsp[24:28], "big") + 1

    def command(self, lun, cdb, data_out=b"", expected_in=0):
        """Returns (status, sense bytes, data-in), after retrying once a UNIT ATTENTION (a new I_T nexus gets
        POWER ON, RESET, OR BUS DEVICE RESET OCCURRED first, SAM-5 §6.2; initiators retry it)."""
        st, sense, data = self.command_once(lun, cdb, data_out, expected_in)
        if st == 2 and sense and describe(st, sense).startswith("CHECK CONDITION, sense key 06h"):
            print(f"  (LUN {lun}: {describe(st, sense)}, a unit attention; retried)")
            st, sense, data = self.command_once(lun, cdb, data_out, expected_in)
        return st, sense, data

    def command_once(self, lun, cdb, data_out, expected_in):
        bhs = bytearray(48)
        bhs[0] = 0x01
        bhs[1] = 0x80 | (0x40 if expected_in else 0) | (0x20 if data_out else 0) | 0x01  # F, R, W, SIMPLE
        bhs[5:8] = len(data_out).to_bytes(3, "big")
        bhs[9] = lun  # single-level LUN below 256 (SAM-5 peripheral addressing)
        self.itt += 1
        struct.pack_into(">IIII", bhs, 16, self.itt, max(len(data_out), expected_in), self.cmdsn, self.exp_statsn)
        bhs[32:32 + len(cdb)] = cdb
        self.cmdsn += 1
        self.send(bytes(bhs), data_out)
        data_in = b""
        while True:
            rsp, data = self.recv_pdu()
            op = rsp[0] & 0x3F
            if op == 0x25:  # Data-In, maybe with status (S bit)
                data_in += data
                if rsp[1] & 0x01:
                    self.exp_statsn = int.from_bytes(rsp[24:28], "big") + 1
                    return rsp[3], b"", data_in
            elif op == 0x21:  # SCSI Response
                self.exp_statsn = int.from_bytes(rsp[24:28], "big") + 1
                sense = data[2:2 + int.from_bytes(data[0:2], "big")] if len(data) >= 2 else b""
                return rsp[3], sense, data_in
            # a NOP-In or asynchronous message: not this command's answer


def describe(status, sense):
    if status == 0:
        return "GOOD"
    if not sense:
        return f"status {status:#04x}"
    if sense[0] & 0x7F in (0x72, 0x73):
        key, asc, ascq = sense[1] & 0x0F, sense[2], sense[3]
    else:
        key, asc, ascq = sense[2] & 0x0F, sense[12], sense[13]
    return f"CHECK CONDITION, sense key {key:02X}h ASC {asc:02X}h ASCQ {ascq:02X}h"


def rw10(opcode, lba, blocks):
    return struct.pack(">BBIBHB", opcode, 0, lba, 0, blocks, 0)


def main():
    host, port = sys.argv[1].rsplit(":", 1)
    target = sys.argv[2]
    failures = 0

    def expect(what, got, want):
        nonlocal failures
        ok = got == want
        failures += 0 if ok else 1
        print(f"{what}: {got}{'' if ok else '   <-- expected ' + want}")

    a = Session(host, int(port), target, 1)
    data = bytes((i * 7) & 0xFF for i in range(8 * BLOCK))
    far = 1 << 33
    spent = "CHECK CONDITION, sense key 07h ASC 27h ASCQ 07h"
    st, sense, _ = a.command(0, struct.pack(">BBQIBB", 0x8A, 0, far, 8, 0, 0), data)  # WRITE(16)
    expect(f"session A, LUN 0: WRITE(16) of 8 blocks at LBA {far} (a new page)", describe(st, sense), spent)
    print(f"  sense bytes: {sense.hex(' ')}")
    st, sense, rd = a.command(0, rw10(0x28, 0, 8), expected_in=8 * BLOCK)
    expect("session A, LUN 0: READ(10) of 8 written blocks at LBA 0", describe(st, sense), "GOOD")
    print(f"  {len(rd)} bytes, {'not all zero' if any(rd) else 'all zero'}")
    st, sense, rd = a.command(0, rw10(0x28, 1 << 30, 8), expected_in=8 * BLOCK)
    expect("session A, LUN 0: READ(10) of 8 unwritten blocks at LBA 2^30", describe(st, sense), "GOOD")
    print(f"  {len(rd)} bytes, {'not all zero' if any(rd) else 'all zero'}")
    st, sense, _ = a.command(0, rw10(0x2A, 8, 8), data)
    expect("session A, LUN 0: WRITE(10) into an allocated page (LBA 8)", describe(st, sense), "GOOD")

    b = Session(host, int(port), target, 2)
    print("session B: logged in while the budget is spent")
    st, sense, rd = b.command(1, bytes([0x12, 0, 0, 0, 96, 0]), expected_in=96)
    expect("session B, LUN 1: INQUIRY", describe(st, sense), "GOOD")
    st, sense, _ = b.command(1, rw10(0x2A, 0, 8), data)
    expect("session B, LUN 1: WRITE(10) of 8 blocks at LBA 0 (same budget)", describe(st, sense), spent)
    unmap = struct.pack(">HH4xQI4x", 22, 16, 0, 131072)  # one descriptor: LBA 0, 131072 blocks (64 MiB)
    st, sense, _ = a.command(0, struct.pack(">BB4xBHB", 0x42, 0, 0, len(unmap), 0), unmap)
    expect("session A, LUN 0: UNMAP of LBAs 0..131071", describe(st, sense), "GOOD")
    st, sense, _ = b.command(1, rw10(0x2A, 0, 8), data)
    expect("session B, LUN 1: WRITE(10) of 8 blocks at LBA 0 again", describe(st, sense), "GOOD")
    st, sense, rd = b.command(1, rw10(0x28, 0, 8), expected_in=8 * BLOCK)
    expect("session B, LUN 1: READ(10) back", describe(st, sense) + (", same data" if rd == data else ", other data"),
           "GOOD, same data")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
