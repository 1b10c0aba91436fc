package io.hostwide.iscsi.login;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostwide.iscsi.spec.LoginStatus;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every RFC 7143 §13 key against the default policy (MaxRecvDataSegmentLength 262144, MaxBurstLength 1 MiB,
 * FirstBurstLength 256 KiB, MaxOutstandingR2T 16, MaxConnections 8, InitialR2T=No, ImmediateData=Yes, both digests
 * allowed, DefaultTime2Wait 2, DefaultTime2Retain 20). An empty expected answer means "no answer" (declarative);
 * FAIL means the login ends with an initiator error (0200).
 */
class NegotiatorTest {
    static final String FAIL = "FAIL";

    static String answer(Negotiator n, String key, String value) {
        List<KeyValue> out = new ArrayList<>();
        LoginStatus s = n.offer(new KeyValue(key, value), out);
        if (s != null) {
            assertThat(s).isEqualTo(LoginStatus.INITIATOR_ERROR);
            assertThat(out).isEmpty();
            return FAIL;
        }
        if (out.isEmpty()) {
            return "";
        }
        assertThat(out).hasSize(1);
        assertThat(out.get(0).key()).isEqualTo(key);
        return out.get(0).value();
    }

    @ParameterizedTest(name = "{0}={1} -> {2}")
    @CsvSource(delimiter = ';', value = {
        "HeaderDigest;CRC32C,None;CRC32C", "HeaderDigest;None,CRC32C;None", "HeaderDigest;None;None",
        "HeaderDigest;MD5;Reject", "HeaderDigest;MD5,CRC32C;CRC32C",
        "DataDigest;CRC32C;CRC32C", "DataDigest;None;None", "DataDigest;SHA1;Reject",
        "MaxConnections;1;1", "MaxConnections;100;8", "MaxConnections;65535;8", "MaxConnections;0;FAIL",
        "MaxConnections;65536;FAIL", "MaxConnections;x;FAIL",
        "InitialR2T;Yes;Yes", "InitialR2T;No;No", "InitialR2T;yes;FAIL", "InitialR2T;;FAIL",
        "ImmediateData;Yes;Yes", "ImmediateData;No;No", "ImmediateData;Maybe;FAIL",
        "MaxRecvDataSegmentLength;8192;", "MaxRecvDataSegmentLength;512;", "MaxRecvDataSegmentLength;16777215;",
        "MaxRecvDataSegmentLength;511;FAIL", "MaxRecvDataSegmentLength;16777216;FAIL",
        "MaxBurstLength;262144;262144", "MaxBurstLength;16777215;1048576", "MaxBurstLength;0x40000;262144",
        "MaxBurstLength;512;512", "MaxBurstLength;511;FAIL", "MaxBurstLength;16777216;FAIL", "MaxBurstLength;1e6;FAIL",
        "MaxBurstLength;99999999999999999999;FAIL", "MaxBurstLength;0x;FAIL",
        "FirstBurstLength;65536;65536", "FirstBurstLength;16777215;262144", "FirstBurstLength;100;FAIL",
        "DefaultTime2Wait;0;2", "DefaultTime2Wait;10;10", "DefaultTime2Wait;3600;3600", "DefaultTime2Wait;3601;FAIL",
        "DefaultTime2Retain;0;0", "DefaultTime2Retain;60;20", "DefaultTime2Retain;-1;FAIL",
        "MaxOutstandingR2T;1;1", "MaxOutstandingR2T;64;16", "MaxOutstandingR2T;0;FAIL",
        "DataPDUInOrder;No;Yes", "DataPDUInOrder;Yes;Yes", "DataSequenceInOrder;No;Yes", "DataPDUInOrder;1;FAIL",
        "ErrorRecoveryLevel;2;0", "ErrorRecoveryLevel;1;0", "ErrorRecoveryLevel;0;0", "ErrorRecoveryLevel;3;FAIL",
        "IFMarker;No;No", "OFMarker;Yes;No", "OFMarkInt;2048~2048;Reject", "IFMarkInt;1~65535;Reject",
        "X-com.example.knob;1;NotUnderstood", "X#iana.key;1;NotUnderstood", "FutureKey;1;NotUnderstood",
        "TargetAlias;x;FAIL", "TargetPortalGroupTag;1;FAIL", "TargetAddress;1.2.3.4;FAIL",
        "SendTargets;All;Irrelevant", "iSCSIProtocolLevel;2;1", "iSCSIProtocolLevel;0;0",
        "TaskReporting;ResponseFence,RFC3720;RFC3720", "TaskReporting;FastAbort;Reject",
        "InitiatorAlias;host-a;"})
    void normalLeadingConnection(String key, String value, String expected) {
        Negotiator n = new Negotiator(NegotiationPolicy.defaults(), true);
        assertThat(answer(n, key, value == null ? "" : value)).isEqualTo(expected == null ? "" : expected);
    }

    @ParameterizedTest(name = "discovery {0}")
    @CsvSource({"MaxConnections", "InitialR2T", "ImmediateData", "MaxBurstLength", "FirstBurstLength",
        "MaxOutstandingR2T", "DataPDUInOrder", "DataSequenceInOrder"})
    void sessionWideDataKeysAreIrrelevantInDiscovery(String key) {
        Negotiator n = new Negotiator(NegotiationPolicy.defaults(), true);
        n.discovery(true);
        assertThat(answer(n, key, "Yes")).isEqualTo("Irrelevant");
    }

    @Test
    void leadingOnlyKeysAreIrrelevantOnAddedConnections() {
        Negotiator n = new Negotiator(NegotiationPolicy.defaults(), false);
        assertThat(answer(n, "MaxBurstLength", "65536")).isEqualTo("Irrelevant");
        assertThat(answer(n, "HeaderDigest", "CRC32C")).isEqualTo("CRC32C"); // connection-only key
    }

    @Test
    void digestsAreRefusedWhenThePolicyDisallowsThem() {
        NegotiationPolicy p = NegotiationPolicy.defaults();
        p = new NegotiationPolicy(p.maxRecvDataSegmentLength(), p.maxBurstLength(), p.firstBurstLength(),
                p.maxOutstandingR2t(), p.maxConnections(), p.initialR2t(), p.immediateData(), false, false,
                p.defaultTime2Wait(), p.defaultTime2Retain());
        Negotiator n = new Negotiator(p, true);
        assertThat(answer(n, "HeaderDigest", "CRC32C")).isEqualTo("Reject");
        assertThat(answer(n, "DataDigest", "CRC32C,None")).isEqualTo("None");
        assertThat(n.result().headerDigest()).isFalse();
    }

    @Test
    void firstBurstNeverExceedsMaxBurst() { // RFC 7143 §13.14
        Negotiator a = new Negotiator(NegotiationPolicy.defaults(), true);
        assertThat(answer(a, "MaxBurstLength", "65536")).isEqualTo("65536");
        assertThat(answer(a, "FirstBurstLength", "262144")).isEqualTo("65536");
        Negotiator b = new Negotiator(NegotiationPolicy.defaults(), true);
        assertThat(answer(b, "FirstBurstLength", "262144")).isEqualTo("262144");
        assertThat(answer(b, "MaxBurstLength", "65536")).isEqualTo("65536");
        assertThat(b.result().firstBurstLength()).isEqualTo(65536);
    }

    @Test
    void resultCarriesEveryNegotiatedValue() {
        Negotiator n = new Negotiator(NegotiationPolicy.defaults(), true);
        for (String kv : new String[] {"HeaderDigest=CRC32C", "DataDigest=CRC32C", "MaxRecvDataSegmentLength=65536",
                "MaxBurstLength=524288", "FirstBurstLength=131072", "InitialR2T=No", "ImmediateData=Yes",
                "MaxOutstandingR2T=4", "ErrorRecoveryLevel=2", "MaxConnections=2", "DefaultTime2Wait=0",
                "DefaultTime2Retain=0"}) {
            String[] p = kv.split("=");
            assertThat(answer(n, p[0], p[1])).isNotEqualTo(FAIL);
        }
        assertThat(n.result()).isEqualTo(new NegotiatedParameters(true, true, 65536, 262144, 524288, 131072, false,
                true, 4, true, true, 0, 2, 2, 0));
    }

    @Test
    void defaultsHoldWhenNothingIsOffered() {
        assertThat(new Negotiator(NegotiationPolicy.defaults(), true).result()).isEqualTo(
                new NegotiatedParameters(false, false, 8192, 262144, 262144, 65536, true, true, 1, true, true, 0, 1,
                        2, 20));
    }

    @Test
    void everyDefinedKeyHasARule() {
        for (KeyDefinition d : KeyDefinition.all()) {
            assertThat(d.name()).isNotBlank();
            if (d.type() == KeyType.NUMERIC_MIN || d.type() == KeyType.NUMERIC_MAX) {
                assertThat(d.max()).isGreaterThan(d.min());
                long dflt = Negotiator.parseNumber(d.defaultValue());
                assertThat(dflt).isBetween(d.min(), d.max());
            }
        }
    }
}
