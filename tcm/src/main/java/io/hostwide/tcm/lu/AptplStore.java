package io.hostwide.tcm.lu;

import java.io.IOException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The APTPL file of one LU (SPC-4 §5.13.5: registrations and the reservation persist through power loss). A text
 * file replaced atomically: written to a temporary file in the same directory, forced to disk, then renamed over
 * the old one, so a crash leaves either the old or the new state, never a torn one.
 * <pre>
 * hostwide-aptpl 1
 * generation &lt;n&gt;
 * reservation &lt;type&gt; &lt;index of the holding registration, -1 for all registrants&gt;   (absent when none)
 * registration &lt;key hex&gt; &lt;all_tg_pt 0|1&gt; &lt;relative target port&gt; &lt;target port|-&gt; &lt;initiator port&gt;
 * </pre>
 * Names are URL-encoded. The SPC-2 reservation is not persisted (it never survives a reset).
 */
final class AptplStore {
    private AptplStore() {}

    private static final String MAGIC = "hostwide-aptpl 1";

    static void write(Path file, PrState s) throws IOException {
        StringBuilder sb = new StringBuilder(MAGIC).append('\n');
        sb.append("generation ").append(Integer.toUnsignedString(s.generation())).append('\n');
        List<Registration> regs = s.registrations();
        if (s.reserved()) {
            // all registrants: no holder, -1 (never indexOf(null): the state's immutable list throws on it)
            int holder = s.holder() == null ? -1 : regs.indexOf(s.holder());
            sb.append("reservation ").append(s.type()).append(' ').append(holder).append('\n');
        }
        for (Registration r : regs) {
            sb.append("registration ").append(Long.toHexString(r.key())).append(' ').append(r.allTargetPorts() ? 1 : 0)
                    .append(' ').append(r.relativeTargetPortId()).append(' ')
                    .append(r.targetPortName() == null ? "-" : enc(r.targetPortName())).append(' ')
                    .append(enc(r.initiatorPortName())).append('\n');
        }
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, file.getFileName().toString(), ".tmp");
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                ch.write(java.nio.ByteBuffer.wrap(sb.toString().getBytes(StandardCharsets.UTF_8)));
                ch.force(true);
            }
            try {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    static void delete(Path file) throws IOException { Files.deleteIfExists(file); }

    /** @return the persisted state (APTPL active), or null when there is no file */
    static PrState read(Path file) throws IOException {
        if (!Files.exists(file)) {
            return null;
        }
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        if (lines.isEmpty() || !lines.get(0).equals(MAGIC)) {
            throw new IOException("not an APTPL file: " + file);
        }
        int generation = 0, type = 0, holderIndex = -1;
        List<Registration> regs = new ArrayList<>();
        try {
            for (String line : lines.subList(1, lines.size())) {
                String[] f = line.split(" ");
                switch (f[0]) {
                    case "generation" -> generation = Integer.parseUnsignedInt(f[1]);
                    case "reservation" -> {
                        type = Integer.parseInt(f[1]);
                        holderIndex = Integer.parseInt(f[2]);
                    }
                    case "registration" -> regs.add(new Registration(dec(f[5]), f[4].equals("-") ? null : dec(f[4]),
                            Integer.parseInt(f[3]), Long.parseUnsignedLong(f[1], 16), f[2].equals("1")));
                    case "" -> { }
                    default -> throw new IOException("unknown APTPL line: " + line);
                }
            }
        } catch (RuntimeException e) {
            throw new IOException("malformed APTPL file " + file + ": " + e, e);
        }
        if (type != 0 && (!PrType.valid(type) || holderIndex >= regs.size()
                || (holderIndex < 0 && !PrType.allRegistrants(type)))) {
            throw new IOException("inconsistent reservation in APTPL file " + file);
        }
        Registration holder = type != 0 && holderIndex >= 0 ? regs.get(holderIndex) : null;
        return new PrState(generation, regs, type, holder, null, true);
    }

    private static String enc(String s) { return URLEncoder.encode(s, StandardCharsets.UTF_8); }

    private static String dec(String s) { return URLDecoder.decode(s, StandardCharsets.UTF_8); }
}
