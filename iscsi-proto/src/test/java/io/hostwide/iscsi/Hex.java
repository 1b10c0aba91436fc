package io.hostwide.iscsi;

import java.nio.ByteBuffer;
import java.util.HexFormat;

/** Test helper: hex strings with spaces and '|' separators for readability. */
public final class Hex {
    private Hex() {}

    public static byte[] bytes(String hex) {
        return HexFormat.of().parseHex(hex.replaceAll("[\\s|]", ""));
    }

    public static ByteBuffer buffer(String hex) {
        return ByteBuffer.wrap(bytes(hex));
    }

    public static String of(ByteBuffer b) {
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return HexFormat.of().formatHex(a);
    }
}
