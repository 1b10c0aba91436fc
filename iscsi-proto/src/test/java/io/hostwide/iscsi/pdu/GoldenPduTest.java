package io.hostwide.iscsi.pdu;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostwide.iscsi.Hex;
import io.hostwide.iscsi.spec.TaskAttribute;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Golden bytes for every RFC 7143 opcode, written field by field from the §11 diagrams (not from the encoder), then
 * checked both ways: encoding gives these bytes, decoding them gives the record back.
 */
class GoldenPduTest {
    static final long LUN1 = 0x0001_0000_0000_0000L;
    static final int ITT = 0x11223344;
    static final int TTT = 0x55667788;
    static final int CMD_SN = 0x0a0b0c0d;
    static final int EXP_STAT_SN = 0x01020304;
    static final int STAT_SN = 0x21222324;
    static final int EXP_CMD_SN = 0x31323334;
    static final int MAX_CMD_SN = 0x41424344;
    static final long ISID = 0x4000_0137_0000L;
    static final String Z4 = "00000000";

    static ByteBuffer ascii(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    static Stream<Arguments> golden() {
        byte[] cdb32 = new byte[32];
        cdb32[0] = 0x7f;
        for (int i = 1; i < 32; i++) {
            cdb32[i] = (byte) i;
        }
        String nopOutBhs = "40800000 00000004 0001000000000000 11223344 ffffffff 0a0b0c0d 01020304" + Z4.repeat(4);
        return Stream.of(
                Arguments.of(new NopOut(true, LUN1, ITT, -1, CMD_SN, EXP_STAT_SN, ascii("ping")),
                        nopOutBhs + "70696e67"),
                Arguments.of(new NopIn(LUN1, -1, TTT, STAT_SN, EXP_CMD_SN, MAX_CMD_SN, ascii("hello")),
                        "20800000 00000005 0001000000000000 ffffffff 55667788 21222324 31323334 41424344"
                                + Z4.repeat(3) + "68656c6c6f 000000"),
                Arguments.of(new ScsiCommand(false, true, true, false, TaskAttribute.SIMPLE, LUN1, ITT, 0x1000, CMD_SN,
                        EXP_STAT_SN, Hex.buffer("28000000 00100000 0800"), -1, null),
                        "01c10000 00000000 0001000000000000 11223344 00001000 0a0b0c0d 01020304"
                                + "28000000 00100000 08000000 00000000"),
                Arguments.of(new ScsiCommand(false, true, false, true, TaskAttribute.SIMPLE, LUN1, ITT, 3, CMD_SN,
                        EXP_STAT_SN, ByteBuffer.wrap(cdb32), 0x200, ascii("abc")),
                        "01a10000 07000003 0001000000000000 11223344 00000003 0a0b0c0d 01020304"
                                + "7f010203 04050607 08090a0b 0c0d0e0f"
                                + "00110100 10111213 14151617 18191a1b 1c1d1e1f" // extended CDB AHS
                                + "00050200 00000200" // bidirectional read length AHS
                                + "61626300"),
                Arguments.of(new ScsiResponse(false, false, false, true, 0, 0x02, ITT, 0, STAT_SN, EXP_CMD_SN,
                        MAX_CMD_SN, 7, 0, 0x200, Hex.buffer("00027000")),
                        "21820002 00000004 0000000000000000 11223344 00000000 21222324 31323334 41424344"
                                + "00000007 00000000 00000200 00027000"),
                Arguments.of(new TaskManagementRequest(true, 1, LUN1, ITT, 0x99aabbcc, CMD_SN, EXP_STAT_SN,
                        0x0a0b0c0c, 0), "42810000 00000000 0001000000000000 11223344 99aabbcc 0a0b0c0d 01020304"
                                + "0a0b0c0c 00000000" + Z4.repeat(2)),
                Arguments.of(new TaskManagementResponse(0, ITT, STAT_SN, EXP_CMD_SN, MAX_CMD_SN),
                        "22800000 00000000 0000000000000000 11223344 00000000 21222324 31323334 41424344"
                                + Z4.repeat(3)),
                Arguments.of(new LoginRequest(true, false, 0, 1, 0, 0, ISID, 0, ITT, 1, CMD_SN, EXP_STAT_SN,
                        ascii("InitiatorName=iqn.x\0")),
                        "43810000 00000014 400001370000 0000 11223344 00010000 0a0b0c0d 01020304" + Z4.repeat(4)
                                + "496e69746961746f724e616d653d69716e2e7800"),
                Arguments.of(new LoginResponse(true, false, 1, 3, 0, 0, ISID, 0x0102, ITT, STAT_SN, EXP_CMD_SN,
                        MAX_CMD_SN, 0, 0, null),
                        "23870000 00000000 400001370000 0102 11223344 00000000 21222324 31323334 41424344"
                                + "00000000" + Z4.repeat(2)),
                Arguments.of(new LoginResponse(false, false, 0, 0, 0, 0, ISID, 0, ITT, STAT_SN, EXP_CMD_SN,
                        MAX_CMD_SN, 2, 1, null),
                        "23000000 00000000 400001370000 0000 11223344 00000000 21222324 31323334 41424344"
                                + "02010000" + Z4.repeat(2)),
                Arguments.of(new TextRequest(true, true, false, 0, ITT, -1, CMD_SN, EXP_STAT_SN,
                        ascii("SendTargets=All\0")),
                        "44800000 00000010 0000000000000000 11223344 ffffffff 0a0b0c0d 01020304" + Z4.repeat(4)
                                + "53656e64546172676574733d416c6c00"),
                Arguments.of(new TextResponse(false, true, 0, ITT, 1, STAT_SN, EXP_CMD_SN, MAX_CMD_SN, ascii("A=B\0")),
                        "24400000 00000004 0000000000000000 11223344 00000001 21222324 31323334 41424344"
                                + Z4.repeat(3) + "413d4200"),
                Arguments.of(new DataOut(true, LUN1, ITT, TTT, EXP_STAT_SN, 2, 0x2000, Hex.buffer("010203040506")),
                        "05800000 00000006 0001000000000000 11223344 55667788 00000000 01020304 00000000"
                                + "00000002 00002000 00000000 010203040506 0000"),
                Arguments.of(new DataIn(true, false, false, true, true, 0, LUN1, ITT, -1, STAT_SN, EXP_CMD_SN,
                        MAX_CMD_SN, 0, 0, 0x100, ascii("abcd")),
                        "25830000 00000004 0001000000000000 11223344 ffffffff 21222324 31323334 41424344"
                                + "00000000 00000000 00000100 61626364"),
                Arguments.of(new LogoutRequest(true, 0, ITT, 1, CMD_SN, EXP_STAT_SN),
                        "46800000 00000000 0000000000000000 11223344 00010000 0a0b0c0d 01020304" + Z4.repeat(4)),
                Arguments.of(new LogoutResponse(0, ITT, STAT_SN, EXP_CMD_SN, MAX_CMD_SN, 2, 20),
                        "26800000 00000000 0000000000000000 11223344 00000000 21222324 31323334 41424344"
                                + "00000000 00020014 00000000"),
                Arguments.of(new SnackRequest(1, 0, ITT, 0, EXP_STAT_SN, 5, 2),
                        "10810000 00000000 0000000000000000 11223344 00000000 00000000 01020304 00000000"
                                + "00000000 00000005 00000002"),
                Arguments.of(new R2t(LUN1, ITT, TTT, STAT_SN, EXP_CMD_SN, MAX_CMD_SN, 1, 0x10000, 0x40000),
                        "31800000 00000000 0001000000000000 11223344 55667788 21222324 31323334 41424344"
                                + "00000001 00010000 00040000"),
                Arguments.of(new AsyncMessage(LUN1, STAT_SN, EXP_CMD_SN, MAX_CMD_SN, 1, 0, 0, 2, 20, null),
                        "32800000 00000000 0001000000000000 ffffffff 00000000 21222324 31323334 41424344"
                                + "01000000 00020014 00000000"),
                Arguments.of(new Reject(0x09, STAT_SN, EXP_CMD_SN, MAX_CMD_SN, 0, Hex.buffer(nopOutBhs)),
                        "3f800900 00000030 0000000000000000 ffffffff 00000000 21222324 31323334 41424344"
                                + Z4.repeat(3) + nopOutBhs));
    }

    @ParameterizedTest
    @MethodSource("golden")
    void encodesToTheRfcLayout(Pdu pdu, String hex) {
        assertThat(Hex.of(Frames.encode(pdu, false, false))).isEqualTo(Hex.of(Hex.buffer(hex)));
    }

    @ParameterizedTest
    @MethodSource("golden")
    void decodesFromTheRfcLayout(Pdu pdu, String hex) {
        DecodeResult r = Frames.decode(Frames.decoderFor(pdu, false, false), Hex.buffer(hex));
        assertThat(r).isEqualTo(pdu);
    }

    @ParameterizedTest
    @MethodSource("golden")
    void roundTripsWithBothDigests(Pdu pdu, String hex) {
        for (int mode = 0; mode < 4; mode++) {
            boolean hd = (mode & 1) != 0;
            boolean dd = (mode & 2) != 0;
            ByteBuffer frame = Frames.encode(pdu, hd, dd);
            int dsl = pdu.data().remaining();
            int expected = Hex.bytes(hex).length + (hd ? 4 : 0) + (dd && dsl > 0 ? 4 : 0);
            assertThat(frame.remaining()).isEqualTo(expected);
            assertThat(frame.remaining() % 4).isZero();
            assertThat(Frames.decode(Frames.decoderFor(pdu, hd, dd), frame)).isEqualTo(pdu);
        }
    }
}
