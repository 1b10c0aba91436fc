package io.hostwide.tcm.lu;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The serialised reservation state a shared store keeps, and the notify payload: round trip and rejection. */
class SharedPrDocumentTest {

    @Property(tries = 300)
    void roundTrip(@ForAll("documents") SharedPrDocument d) throws Exception {
        assertThat(SharedPrDocument.decode(d.encode())).isEqualTo(d);
    }

    @Property(tries = 300)
    void notifyRoundTrip(@ForAll("registrations") List<Registration> to, @ForAll("registrations") List<Registration> notTo)
            throws Exception {
        List<PrNotice> n = List.of(new PrNotice(0x2A05, to, notTo, "iqn.x,i,0x1", "iqn.t,t,0x0001", true),
                new PrNotice(0x2A04, notTo, List.of(), "iqn.x,i,0x1", "iqn.t,t,0x0001", false));
        SharedPrDocument.Notify got = SharedPrDocument.decodeNotify(SharedPrDocument.encodeNotify("gw A", 42, n));
        assertThat(got).isEqualTo(new SharedPrDocument.Notify("gw A", 42, n));
    }

    /** Whatever the bytes, decoding returns a document or a MalformedException; nothing else escapes. */
    @Property(tries = 1000)
    void arbitraryBytesNeverCrash(@ForAll byte[] bytes) {
        decodeSafely(bytes);
        decodeSafely(("hostwide-pr 1\n" + new String(bytes, StandardCharsets.ISO_8859_1)).getBytes(StandardCharsets.ISO_8859_1));
    }

    /** Mutating one line of a valid document: decodes or is rejected, never throws anything else. */
    @Property(tries = 500)
    void corruptedDocumentsNeverCrash(@ForAll("documents") SharedPrDocument d, @ForAll int at, @ForAll char c) {
        byte[] b = d.encode();
        b[Math.floorMod(at, b.length)] = (byte) c;
        decodeSafely(b);
    }

    private static void decodeSafely(byte[] b) {
        try {
            SharedPrDocument.decode(b);
        } catch (SharedPrDocument.MalformedException e) {
            assertThat(e.getMessage()).isNotBlank();
        }
        try {
            SharedPrDocument.decodeNotify(b);
        } catch (SharedPrDocument.MalformedException e) {
            assertThat(e.getMessage()).isNotBlank();
        }
    }

    @Test
    void emptyBlobIsTheEmptyState() throws Exception {
        assertThat(SharedPrDocument.decode(new byte[0])).isEqualTo(SharedPrDocument.EMPTY);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "hostwide-pr 2\ngeneration 0\naptpl 0\n|first line",
            "hostwide-pr 1\naptpl 0\n|missing generation",
            "hostwide-pr 1\ngeneration 0\n|missing aptpl",
            "hostwide-pr 1\ngeneration 0\ngeneration 1\naptpl 0\n|line 3: repeated",
            "hostwide-pr 1\ngeneration 4294967296\naptpl 0\n|line 2",
            "hostwide-pr 1\ngeneration -1\naptpl 0\n|line 2",
            "hostwide-pr 1\ngeneration 0\naptpl 2\n|line 3",
            "hostwide-pr 1\ngeneration 0\naptpl 0\nreservation 2 0\n|Table 172",
            "hostwide-pr 1\ngeneration 0\naptpl 0\nreservation 1 0\n|holder index",
            "hostwide-pr 1\ngeneration 0\naptpl 0\nreservation 7 0\nregistration 1 0 1 t i\n|holder index",
            "hostwide-pr 1\ngeneration 0\naptpl 0\nregistration 1 0 1 - i\n|ALL_TG_PT",
            "hostwide-pr 1\ngeneration 0\naptpl 0\nregistration 1 1 1 t i\n|ALL_TG_PT",
            "hostwide-pr 1\ngeneration 0\naptpl 0\nregistration 10000000000000000 0 1 t i\n|hex",
            "hostwide-pr 1\ngeneration 0\naptpl 0\nregistration 1 0 70000 t i\n|line 4",
            "hostwide-pr 1\ngeneration 0\naptpl 0\nregistration 1 0 1 t\n|fields",
            "hostwide-pr 1\ngeneration 0\naptpl 0\nregistration 1 0 1 t %zz\n|does not decode",
            "hostwide-pr 1\ngeneration 0\naptpl 0\nport 0 t\n|repeated",
            "hostwide-pr 1\ngeneration 0\naptpl 0\nport 1 a\nport 1 b\n|repeated",
            "hostwide-pr 1\ngeneration 0\naptpl 0\nspc2 t\n|fields",
            "hostwide-pr 1\ngeneration 0\naptpl 0\nholder x\n|unknown key",
            "hostwide-pr 1\ngeneration 0\naptpl 0\n\n|unknown key",
    })
    void malformedIsRejectedWithAMessage(String caseText) {
        String[] parts = caseText.split("\\|");
        assertThatThrownBy(() -> SharedPrDocument.decode(parts[0].getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(SharedPrDocument.MalformedException.class).hasMessageContaining(parts[1]);
    }

    @Test
    void notUtf8AndOversizedAreRejected() {
        assertThatThrownBy(() -> SharedPrDocument.decode(new byte[] {'h', (byte) 0xC3, 0x28}))
                .isInstanceOf(SharedPrDocument.MalformedException.class).hasMessageContaining("UTF-8");
        assertThatThrownBy(() -> SharedPrDocument.decode(new byte[SharedPrDocument.MAX_BYTES + 1]))
                .isInstanceOf(SharedPrDocument.MalformedException.class).hasMessageContaining("more than");
    }

    @Provide
    Arbitrary<SharedPrDocument> documents() {
        Arbitrary<Map<Integer, String>> ports = Arbitraries.maps(Arbitraries.integers().between(1, 0xFFFF), names())
                .ofMaxSize(4);
        Arbitrary<Spc2Holder> spc2 = Combinators.combine(names(), names()).as(Spc2Holder::new).injectNull(0.5);
        return Combinators.combine(registrations(), Arbitraries.integers(), Arbitraries.of(0, 1, 3, 5, 6, 7, 8),
                Arbitraries.integers().between(0, 100), spc2, Arbitraries.of(true, false), ports)
                .as((regs, gen, type, holderPick, s2, aptpl, p) -> {
                    int t = regs.isEmpty() && !PrType.allRegistrants(type) ? 0 : type;
                    Registration holder = t == 0 || PrType.allRegistrants(t) ? null : regs.get(holderPick % regs.size());
                    return new SharedPrDocument(new PrState(gen, regs, t, holder, s2, aptpl), new TreeMap<>(p));
                });
    }

    @Provide
    Arbitrary<List<Registration>> registrations() {
        Arbitrary<Registration> one = Combinators.combine(names(), names(), Arbitraries.integers().between(0, 0xFFFF),
                Arbitraries.longs(), Arbitraries.of(true, false))
                .as((i, t, rtpi, key, all) -> new Registration(i, all ? null : t, rtpi, key, all));
        return one.list().ofMaxSize(6).uniqueElements();
    }

    /** Names with the characters that need escaping: spaces, newlines, '%', '+', non-ASCII. */
    private static Arbitrary<String> names() {
        return Arbitraries.strings().withChars("iqn.2026-12:,x0 \n%+é").ofMinLength(1).ofMaxLength(30);
    }
}
