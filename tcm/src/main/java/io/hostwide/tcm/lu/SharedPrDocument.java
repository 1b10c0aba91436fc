package io.hostwide.tcm.lu;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The reservation state of one LU as a shared store keeps it: the {@link PrState} (SPC-2 holder included, by
 * name) and the target ports every gateway advertised (relative target port identifier to SCSI target port
 * name), which REGISTER AND MOVE needs to name a port of another gateway (SPC-4 §5.13.8). Text, versioned by
 * its first line, names URL-encoded:
 * <pre>
 * hostwide-pr 1
 * generation &lt;PRgeneration, unsigned&gt;
 * aptpl 0|1
 * reservation &lt;type&gt; &lt;index of the holding registration, -1 for all registrants&gt;   (absent when none)
 * spc2 &lt;target port&gt; &lt;initiator port&gt;                                          (absent when none)
 * port &lt;relative target port id&gt; &lt;target port name&gt;
 * registration &lt;key hex&gt; &lt;all_tg_pt 0|1&gt; &lt;relative target port&gt; &lt;target port|-&gt; &lt;initiator port&gt;
 * </pre>
 * {@link #decode} rejects anything else with a {@link MalformedException} naming the line; it never throws
 * anything else, whatever the bytes.
 */
public record SharedPrDocument(PrState state, SortedMap<Integer, String> ports) {

    static final String MAGIC = "hostwide-pr 1";
    static final String NOTIFY_MAGIC = "hostwide-pr-notify 1";
    /** Far above any real state (a registration is under 600 bytes); bounds what a corrupt object costs. */
    public static final int MAX_BYTES = 4 << 20;

    public static final SharedPrDocument EMPTY = new SharedPrDocument(PrState.EMPTY, new TreeMap<>());

    public SharedPrDocument {
        ports = Collections.unmodifiableSortedMap(new TreeMap<>(ports));
    }

    public SharedPrDocument withState(PrState s) { return new SharedPrDocument(s, ports); }

    /** Bytes of a shared state or notify that are not what this version writes. */
    public static final class MalformedException extends Exception {
        public MalformedException(String message) { super(message); }
    }

    public byte[] encode() {
        PrState s = state;
        StringBuilder sb = new StringBuilder(MAGIC).append('\n');
        sb.append("generation ").append(Integer.toUnsignedString(s.generation())).append('\n');
        sb.append("aptpl ").append(s.aptpl() ? 1 : 0).append('\n');
        if (s.reserved()) {
            // all registrants: no holder, -1 (and never indexOf(null): immutable lists throw on it)
            int holder = s.holder() == null ? -1 : s.registrations().indexOf(s.holder());
            sb.append("reservation ").append(s.type()).append(' ').append(holder).append('\n');
        }
        if (s.spc2Holder() != null) {
            sb.append("spc2 ").append(enc(s.spc2Holder().targetPortName())).append(' ')
                    .append(enc(s.spc2Holder().initiatorPortName())).append('\n');
        }
        ports.forEach((id, name) -> sb.append("port ").append(id).append(' ').append(enc(name)).append('\n'));
        for (Registration r : s.registrations()) {
            sb.append("registration ");
            registration(sb, r);
            sb.append('\n');
        }
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** The empty document for an empty blob (nothing stored yet), else the decoded one. */
    public static SharedPrDocument decode(byte[] bytes) throws MalformedException {
        if (bytes == null || bytes.length == 0) {
            return EMPTY;
        }
        List<String> lines = lines(bytes, MAGIC);
        int generation = 0, type = 0, holderIndex = -1;
        Boolean aptpl = null;
        Spc2Holder spc2 = null;
        boolean generationSeen = false, reservationSeen = false;
        SortedMap<Integer, String> ports = new TreeMap<>();
        List<Registration> regs = new ArrayList<>();
        for (int i = 1; i < lines.size(); i++) {
            String[] f = lines.get(i).split(" ", -1);
            String where = "line " + (i + 1);
            switch (f[0]) {
                case "generation" -> {
                    fields(f, 2, where);
                    generationSeen = once(generationSeen, where);
                    generation = (int) number(f[1], 0xFFFF_FFFFL, where);
                }
                case "aptpl" -> {
                    fields(f, 2, where);
                    once(aptpl != null, where);
                    aptpl = bit(f[1], where);
                }
                case "reservation" -> {
                    fields(f, 3, where);
                    reservationSeen = once(reservationSeen, where);
                    type = (int) number(f[1], 0xF, where);
                    holderIndex = f[2].equals("-1") ? -1 : (int) number(f[2], Integer.MAX_VALUE, where);
                    if (!PrType.valid(type)) {
                        throw new MalformedException(where + ": reservation type " + type + " is not one of SPC-4 Table 172");
                    }
                }
                case "spc2" -> {
                    fields(f, 3, where);
                    once(spc2 != null, where);
                    spc2 = new Spc2Holder(name(f[2], where), name(f[1], where));
                }
                case "port" -> {
                    fields(f, 3, where);
                    int id = (int) number(f[1], 0xFFFF, where);
                    if (id == 0 || ports.put(id, name(f[2], where)) != null) {
                        throw new MalformedException(where + ": relative target port " + id + " is 0 or repeated");
                    }
                }
                case "registration" -> regs.add(registration(f, 1, where));
                default -> throw new MalformedException(where + ": unknown key '" + abbreviate(f[0]) + "'");
            }
        }
        if (!generationSeen || aptpl == null) {
            throw new MalformedException("missing " + (!generationSeen ? "generation" : "aptpl") + " line");
        }
        Registration holder = null;
        if (type != 0) {
            if (PrType.allRegistrants(type) ? holderIndex != -1 : holderIndex < 0 || holderIndex >= regs.size()) {
                throw new MalformedException("reservation holder index " + holderIndex + " does not fit type " + type
                        + " and " + regs.size() + " registrations");
            }
            holder = holderIndex >= 0 ? regs.get(holderIndex) : null;
        }
        return new SharedPrDocument(new PrState(generation, regs, type, holder, spc2, aptpl), ports);
    }

    // --- notify payload: who changed it, to which version, and the unit attentions owed ------------------------

    /** A decoded notify. */
    public record Notify(String origin, long version, List<PrNotice> notices) {}

    public static byte[] encodeNotify(String origin, long version, List<PrNotice> notices) {
        StringBuilder sb = new StringBuilder(NOTIFY_MAGIC).append('\n');
        sb.append("origin ").append(enc(origin)).append('\n');
        sb.append("version ").append(version).append('\n');
        for (PrNotice n : notices) {
            sb.append("notice ").append(Integer.toHexString(n.ascAscq())).append(' ').append(n.abort() ? 1 : 0)
                    .append(' ').append(enc(n.senderInitiatorPort())).append(' ').append(enc(n.senderTargetPort()))
                    .append('\n');
            for (Registration r : n.to()) {
                registration(sb.append("to "), r).append('\n');
            }
            for (Registration r : n.notTo()) {
                registration(sb.append("notto "), r).append('\n');
            }
        }
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    public static Notify decodeNotify(byte[] bytes) throws MalformedException {
        List<String> lines = lines(bytes, NOTIFY_MAGIC);
        String origin = null;
        long version = -1;
        List<PrNotice> notices = new ArrayList<>();
        int asc = -1;
        boolean abort = false;
        String si = null, st = null;
        List<Registration> to = new ArrayList<>(), notTo = new ArrayList<>();
        for (int i = 1; i < lines.size(); i++) {
            String[] f = lines.get(i).split(" ", -1);
            String where = "notify line " + (i + 1);
            switch (f[0]) {
                case "origin" -> {
                    fields(f, 2, where);
                    origin = name(f[1], where);
                }
                case "version" -> {
                    fields(f, 2, where);
                    version = number(f[1], Long.MAX_VALUE, where);
                }
                case "notice" -> {
                    fields(f, 5, where);
                    if (asc >= 0) {
                        notices.add(new PrNotice(asc, to, notTo, si, st, abort));
                        to.clear();
                        notTo.clear();
                    }
                    asc = (int) hex(f[1], 0xFFFF, where);
                    abort = bit(f[2], where);
                    si = name(f[3], where);
                    st = name(f[4], where);
                }
                case "to", "notto" -> {
                    if (asc < 0) {
                        throw new MalformedException(where + ": " + f[0] + " before any notice");
                    }
                    (f[0].equals("to") ? to : notTo).add(registration(f, 1, where));
                }
                default -> throw new MalformedException(where + ": unknown key '" + abbreviate(f[0]) + "'");
            }
        }
        if (asc >= 0) {
            notices.add(new PrNotice(asc, to, notTo, si, st, abort));
        }
        if (origin == null || version < 0) {
            throw new MalformedException("notify without origin or version");
        }
        return new Notify(origin, version, notices);
    }

    // --- fields ---------------------------------------------------------------------------------------------------

    private static StringBuilder registration(StringBuilder sb, Registration r) {
        return sb.append(Long.toHexString(r.key())).append(' ').append(r.allTargetPorts() ? 1 : 0).append(' ')
                .append(r.relativeTargetPortId()).append(' ')
                .append(r.targetPortName() == null ? "-" : enc(r.targetPortName())).append(' ')
                .append(enc(r.initiatorPortName()));
    }

    private static Registration registration(String[] f, int at, String where) throws MalformedException {
        fields(f, at + 5, where);
        long key = hex(f[at], -1L, where);
        boolean all = bit(f[at + 1], where);
        int rtpi = (int) number(f[at + 2], 0xFFFF, where);
        String target = f[at + 3].equals("-") ? null : name(f[at + 3], where);
        if (all != (target == null)) {
            throw new MalformedException(where + ": a registration names a target port unless ALL_TG_PT is set");
        }
        return new Registration(name(f[at + 4], where), target, rtpi, key, all);
    }

    private static List<String> lines(byte[] bytes, String magic) throws MalformedException {
        if (bytes.length > MAX_BYTES) {
            throw new MalformedException(bytes.length + " bytes, more than the " + MAX_BYTES + " a state may have");
        }
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new MalformedException("not UTF-8: " + e.getMessage());
        }
        List<String> lines = new ArrayList<>(List.of(text.split("\n", -1)));
        if (!lines.isEmpty() && lines.getLast().isEmpty()) {
            lines.removeLast();
        }
        if (lines.isEmpty() || !lines.getFirst().equals(magic)) {
            throw new MalformedException("first line is not '" + magic + "' (another format or version)");
        }
        return lines;
    }

    private static void fields(String[] f, int n, String where) throws MalformedException {
        if (f.length != n) {
            throw new MalformedException(where + ": '" + f[0] + "' wants " + (n - 1) + " fields, has " + (f.length - 1));
        }
    }

    private static boolean once(boolean seen, String where) throws MalformedException {
        if (seen) {
            throw new MalformedException(where + ": repeated");
        }
        return true;
    }

    private static long number(String s, long max, String where) throws MalformedException {
        try {
            long v = Long.parseLong(s);
            if (v < 0 || v > max || !s.equals(Long.toString(v))) {
                throw new NumberFormatException();
            }
            return v;
        } catch (NumberFormatException e) {
            throw new MalformedException(where + ": '" + abbreviate(s) + "' is not a number in 0.." + max);
        }
    }

    /** Hex up to 64 bits; {@code max} -1 means any 64-bit value. */
    private static long hex(String s, long max, String where) throws MalformedException {
        try {
            if (s.isEmpty() || s.length() > 16 || s.startsWith("+") || s.startsWith("-")) {
                throw new NumberFormatException();
            }
            long v = Long.parseUnsignedLong(s, 16);
            if (max != -1 && Long.compareUnsigned(v, max) > 0) {
                throw new NumberFormatException();
            }
            return v;
        } catch (NumberFormatException e) {
            throw new MalformedException(where + ": '" + abbreviate(s) + "' is not hex in range");
        }
    }

    private static boolean bit(String s, String where) throws MalformedException {
        return switch (s) {
            case "0" -> false;
            case "1" -> true;
            default -> throw new MalformedException(where + ": '" + abbreviate(s) + "' is not 0 or 1");
        };
    }

    private static String name(String s, String where) throws MalformedException {
        try {
            String d = URLDecoder.decode(s, StandardCharsets.UTF_8);
            if (d.isEmpty()) {
                throw new IllegalArgumentException("empty");
            }
            return d;
        } catch (IllegalArgumentException e) {
            throw new MalformedException(where + ": name '" + abbreviate(s) + "' does not decode: " + e.getMessage());
        }
    }

    private static String abbreviate(String s) { return s.length() > 40 ? s.substring(0, 40) + "..." : s; }

    /** URL-encoded; a name that is just "-" is escaped, so that "-" always means "no target port". */
    private static String enc(String s) {
        String e = URLEncoder.encode(s, StandardCharsets.UTF_8);
        return e.equals("-") ? "%2D" : e;
    }
}
