package io.hostwide.management.lio;

import io.hostwide.iscsi.login.NegotiationPolicy;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What hostwide always does, in LIO's words: attribute and parameter values that need no setting here because
 * hostwide behaves so anyway. An imported value equal to one of these is carried without a word (the behaviour is
 * the same); any other value of the key is reported, with the reason given here. The export writes these values, so
 * LIO restored from it behaves as hostwide did. Keys absent from these tables and from the importer's own mapping
 * have no hostwide equivalent.
 */
public final class LioTables {

    /** A value hostwide always has, and why, in words for a warning. */
    public record Fixed(String value, String why) {
    }

    /** Storage object {@code attributes} (LIO's se_dev_attrib) hostwide has fixed. */
    static final Map<String, Fixed> DEVICE = new LinkedHashMap<>();

    /** TPG {@code attributes} (iscsi_tpg_attrib) hostwide has fixed. */
    static final Map<String, Fixed> TPG = new LinkedHashMap<>();

    /** TPG {@code parameters}: the RFC 7143 §13 keys as hostwide negotiates them. */
    static final Map<String, Fixed> PARAMETERS = new LinkedHashMap<>();

    /** Node ACL {@code attributes} (iscsi_node_attrib) hostwide has fixed. */
    static final Map<String, Fixed> NODE_ACL = new LinkedHashMap<>();

    /** The value hostwide always has for storage object attribute {@code key}, or null (none fixed). */
    public static Fixed device(String key) {
        return DEVICE.get(key);
    }

    /** The value hostwide always has for TPG attribute {@code key}, or null (none fixed). */
    public static Fixed tpg(String key) {
        return TPG.get(key);
    }

    static {
        DEVICE.put("emulate_caw", new Fixed("1", "hostwide always implements COMPARE AND WRITE"));
        DEVICE.put("emulate_3pc", new Fixed("1", "hostwide always implements EXTENDED COPY"));
        DEVICE.put("emulate_pr", new Fixed("1", "hostwide always implements PERSISTENT RESERVE IN/OUT"));
        DEVICE.put("emulate_tas", new Fixed("1", "hostwide always sets TAS=1 in the Control mode page"));
        DEVICE.put("emulate_fua_write", new Fixed("1", "hostwide always honours FUA on writes"));
        DEVICE.put("emulate_fua_read", new Fixed("1", "hostwide always accepts FUA on reads"));
        DEVICE.put("emulate_dpo", new Fixed("1", "hostwide always accepts DPO (as a hint)"));
        DEVICE.put("is_nonrot", new Fixed("1", "hostwide always reports a non-rotating medium"));
        DEVICE.put("emulate_ua_intlck_ctrl", new Fixed("0", "hostwide has no unit attention interlock"));
        DEVICE.put("emulate_rest_reord", new Fixed("0", "hostwide keeps the restricted reordering algorithm"));
        DEVICE.put("force_pr_aptpl", new Fixed("0", "hostwide never forces APTPL"));
        DEVICE.put("pi_prot_type", new Fixed("0", "hostwide has no protection information"));
        DEVICE.put("pi_prot_format", new Fixed("0", "hostwide has no protection information"));
        DEVICE.put("pi_prot_verify", new Fixed("0", "hostwide has no protection information"));

        TPG.put("default_erl", new Fixed("0", "hostwide runs error recovery level 0 only"));
        TPG.put("prod_mode_write_protect", new Fixed("0", "hostwide write-protects per mapped LUN only"));
        TPG.put("t10_pi", new Fixed("0", "hostwide has no protection information"));
        TPG.put("fabric_prot_type", new Fixed("0", "hostwide has no protection information"));
        TPG.put("tpg_enabled_sendtargets", new Fixed("1", "hostwide's SendTargets always answers"));
        TPG.put("login_timeout", new Fixed("15", "hostwide's login timeout is 15 s"));

        NegotiationPolicy p = NegotiationPolicy.defaults();
        String offers = "hostwide offers ";
        PARAMETERS.put("ErrorRecoveryLevel", new Fixed("0", "hostwide runs error recovery level 0 only"));
        PARAMETERS.put("DataPDUInOrder", new Fixed("Yes", offers + "Yes"));
        PARAMETERS.put("DataSequenceInOrder", new Fixed("Yes", offers + "Yes"));
        PARAMETERS.put("IFMarker", new Fixed("No", "hostwide has no markers"));
        PARAMETERS.put("OFMarker", new Fixed("No", "hostwide has no markers"));
        PARAMETERS.put("IFMarkInt", new Fixed("Reject", "hostwide has no markers"));
        PARAMETERS.put("OFMarkInt", new Fixed("Reject", "hostwide has no markers"));
        String digests = (p.headerDigestCrc32c() ? "CRC32C," : "") + "None";
        PARAMETERS.put("HeaderDigest", new Fixed(digests, offers + digests));
        String dataDigests = (p.dataDigestCrc32c() ? "CRC32C," : "") + "None";
        PARAMETERS.put("DataDigest", new Fixed(dataDigests, offers + dataDigests));
        PARAMETERS.put("DefaultTime2Wait", number(p.defaultTime2Wait()));
        PARAMETERS.put("DefaultTime2Retain", number(p.defaultTime2Retain()));
        PARAMETERS.put("ImmediateData", new Fixed(p.immediateData() ? "Yes" : "No", offers
                + (p.immediateData() ? "Yes" : "No")));
        PARAMETERS.put("InitialR2T", new Fixed(p.initialR2t() ? "Yes" : "No", offers
                + (p.initialR2t() ? "Yes" : "No")));
        PARAMETERS.put("MaxConnections", number(p.maxConnections()));
        PARAMETERS.put("MaxOutstandingR2T", number(p.maxOutstandingR2t()));
        PARAMETERS.put("MaxBurstLength", number(p.maxBurstLength()));
        PARAMETERS.put("FirstBurstLength", number(p.firstBurstLength()));
        PARAMETERS.put("MaxRecvDataSegmentLength", number(p.maxRecvDataSegmentLength()));

        NODE_ACL.put("default_erl", new Fixed("0", "hostwide runs error recovery level 0 only"));
        NODE_ACL.put("random_datain_pdu_offsets", new Fixed("0", "hostwide sends Data-In in order"));
        NODE_ACL.put("random_datain_seq_offsets", new Fixed("0", "hostwide sends Data-In in order"));
        NODE_ACL.put("random_r2t_offsets", new Fixed("0", "hostwide sends R2Ts in order"));
    }

    private static Fixed number(int v) {
        return new Fixed(Integer.toString(v), "hostwide offers " + v);
    }

    private LioTables() {
    }
}
