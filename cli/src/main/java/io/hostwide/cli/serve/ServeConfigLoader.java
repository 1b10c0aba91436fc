package io.hostwide.cli.serve;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.JsonMappingException;
import io.hostwide.cli.util.Sizes;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads and checks a {@link ServeConfig}. Every problem becomes an
 * {@link IllegalArgumentException} whose message names the file, the place
 * (line or key path) and what is wrong — never a stack trace.
 */
public final class ServeConfigLoader {

    /** RFC 7143 §4.2.7.2: iqn., eui. and naa. names (lower-case, no spaces). */
    private static final Pattern ISCSI_NAME = Pattern.compile(
            "iqn\\.\\d{4}-\\d{2}\\.[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?(?::[^\\s]+)?"
                    + "|eui\\.[0-9a-fA-F]{16}|naa\\.(?:[0-9a-fA-F]{16}|[0-9a-fA-F]{32})");
    static final int MAX_LUN = 16383; // SAM-5 flat/peripheral addressing as used by REPORT LUNS here

    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY);

    private ServeConfigLoader() {
    }

    public static ServeConfig load(Path file) {
        String name = file.toString();
        String text;
        try {
            text = Files.readString(file);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("--config: " + name + " does not exist");
        } catch (IOException e) {
            throw new IllegalArgumentException("--config: cannot read " + name + ": " + e.getMessage());
        }
        return parse(name, text);
    }

    public static ServeConfig parse(String name, String json) {
        ServeConfig cfg;
        try {
            cfg = MAPPER.readValue(json, ServeConfig.class);
        } catch (UnrecognizedPropertyException e) {
            throw new IllegalArgumentException(name + where(e.getLocation()) + ": unknown key '" + e.getPropertyName()
                    + "' at " + path(e) + " (known: " + String.join(", ", known(e)) + ")");
        } catch (JsonMappingException e) {
            if (e.getCause() instanceof StreamReadException syntax) {
                throw new IllegalArgumentException(name + where(syntax.getLocation()) + ": not valid JSON: "
                        + plain(syntax.getOriginalMessage()));
            }
            throw new IllegalArgumentException(name + where(e.getLocation()) + ": " + path(e) + ": "
                    + plain(e.getOriginalMessage()));
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(name + where(e.getLocation()) + ": not valid JSON: "
                    + plain(e.getOriginalMessage()));
        }
        if (cfg == null) {
            throw new IllegalArgumentException(name + ": empty configuration");
        }
        check(name, cfg);
        return cfg;
    }

    /** Jackson's message without class names and source excerpts. */
    private static String plain(String message) {
        String m = message.replaceAll(" \\(class [^)]*\\)", "");
        int cut = m.indexOf(" (for ");
        if (cut < 0) {
            cut = m.indexOf(" at [Source");
        }
        return cut < 0 ? m : m.substring(0, cut);
    }

    private static List<String> known(UnrecognizedPropertyException e) {
        return e.getKnownPropertyIds().stream().map(Object::toString).sorted().toList();
    }

    private static String where(JsonLocation loc) {
        return loc == null || loc.getLineNr() < 0 ? "" : " line " + loc.getLineNr();
    }

    private static String path(JsonMappingException e) {
        StringBuilder sb = new StringBuilder();
        for (JsonMappingException.Reference r : e.getPath()) {
            if (r.getFieldName() != null) {
                sb.append(sb.isEmpty() ? "" : ".").append(r.getFieldName());
            } else if (r.getIndex() >= 0) {
                sb.append('[').append(r.getIndex()).append(']');
            }
        }
        return sb.isEmpty() ? "top level" : sb.toString();
    }

    private static void check(String file, ServeConfig cfg) {
        if (cfg.portals() != null) {
            for (int i = 0; i < cfg.portals().size(); i++) {
                Portal.parse(file + ": portals[" + i + "]", cfg.portals().get(i));
            }
        }
        if (cfg.session() != null && cfg.session().queueDepth() != null) {
            int qd = cfg.session().queueDepth();
            if (qd < 1 || qd > 4096) {
                throw new IllegalArgumentException(file + ": session.queue_depth " + qd + " is out of range (1..4096)");
            }
        }
        checkChap(file, "discovery_auth", cfg.discoveryAuth());
        Map<String, ServeConfig.Backstore> stores = cfg.backstores() == null ? Map.of() : cfg.backstores();
        stores.forEach((n, b) -> checkBackstore(file + ": backstores." + n, b));
        if (cfg.targets() == null) {
            return;
        }
        Set<String> names = new HashSet<>();
        Set<String> used = new HashSet<>();
        for (int t = 0; t < cfg.targets().size(); t++) {
            ServeConfig.Target target = cfg.targets().get(t);
            String at = file + ": targets[" + t + "]";
            if (target == null || target.name() == null) {
                throw new IllegalArgumentException(at + ".name is required");
            }
            if (!ISCSI_NAME.matcher(target.name()).matches()) {
                throw new IllegalArgumentException(at + ".name '" + target.name()
                        + "' is not an iSCSI name (iqn.YYYY-MM.reversed.domain[:id], eui.<16 hex>, naa.<hex>)");
            }
            if (!names.add(target.name())) {
                throw new IllegalArgumentException(at + ".name '" + target.name() + "' is used twice");
            }
            checkChap(at, "auth", target.auth());
            Set<Integer> luns = checkLuns(at, target.luns(), stores, used);
            checkAcls(at, target.acls(), luns);
        }
    }

    private static Set<Integer> checkLuns(String at, List<ServeConfig.Lun> luns,
                                          Map<String, ServeConfig.Backstore> stores, Set<String> used) {
        Set<Integer> seen = new HashSet<>();
        if (luns == null) {
            return seen;
        }
        for (int l = 0; l < luns.size(); l++) {
            ServeConfig.Lun lun = luns.get(l);
            String lat = at + ".luns[" + l + "]";
            if (lun == null || lun.lun() == null || lun.backstore() == null) {
                throw new IllegalArgumentException(lat + ": needs \"lun\" and \"backstore\"");
            }
            if (lun.lun() < 0 || lun.lun() > MAX_LUN) {
                throw new IllegalArgumentException(lat + ".lun " + lun.lun() + " is out of range (0.." + MAX_LUN + ")");
            }
            if (!seen.add(lun.lun())) {
                throw new IllegalArgumentException(lat + ".lun " + lun.lun() + " is used twice in this target");
            }
            if (!stores.containsKey(lun.backstore())) {
                throw new IllegalArgumentException(lat + ".backstore: unknown backstore '" + lun.backstore()
                        + "' (defined: " + String.join(", ", stores.keySet()) + ")");
            }
            used.add(lun.backstore());
        }
        return seen;
    }

    private static void checkAcls(String at, List<ServeConfig.Acl> acls, Set<Integer> luns) {
        if (acls == null) {
            return;
        }
        Set<String> initiators = new HashSet<>();
        for (int a = 0; a < acls.size(); a++) {
            ServeConfig.Acl acl = acls.get(a);
            String aat = at + ".acls[" + a + "]";
            if (acl == null || acl.initiator() == null || !ISCSI_NAME.matcher(acl.initiator()).matches()) {
                throw new IllegalArgumentException(aat + ".initiator must be an iSCSI name");
            }
            if (!initiators.add(acl.initiator())) {
                throw new IllegalArgumentException(aat + ".initiator '" + acl.initiator() + "' is listed twice");
            }
            checkChap(aat, "auth", acl.auth());
            if (acl.luns() == null) {
                continue;
            }
            Set<Integer> mapped = new HashSet<>();
            for (int m = 0; m < acl.luns().size(); m++) {
                ServeConfig.MappedLun ml = acl.luns().get(m);
                String mat = aat + ".luns[" + m + "]";
                if (ml == null || ml.lun() == null || !luns.contains(ml.lun())) {
                    throw new IllegalArgumentException(mat + ".lun must name a LUN of this target");
                }
                int as = ml.mappedLun() == null ? ml.lun() : ml.mappedLun();
                if (as < 0 || as > MAX_LUN || !mapped.add(as)) {
                    throw new IllegalArgumentException(mat + ".mapped_lun " + as + " is out of range or used twice");
                }
            }
        }
    }

    private static void checkBackstore(String at, ServeConfig.Backstore b) {
        if (b == null || b.type() == null) {
            throw new IllegalArgumentException(at + ".type is required (ram, file or null)");
        }
        switch (b.type()) {
            case "ram", "null" -> {
                if (b.path() != null) {
                    throw new IllegalArgumentException(at + ".path only applies to file backstores");
                }
                if (b.direct() != null) {
                    throw new IllegalArgumentException(at + ".direct (O_DIRECT) only applies to file backstores");
                }
            }
            case "file" -> {
                if (b.path() == null || b.path().isBlank()) {
                    throw new IllegalArgumentException(at + ".path is required for a file backstore");
                }
            }
            default -> throw new IllegalArgumentException(at + ".type '" + b.type() + "' is unknown (ram, file or null)");
        }
        if (b.size() != null && Sizes.parseBytes(at + ".size", b.size()) <= 0) {
            throw new IllegalArgumentException(at + ".size must be positive");
        }
        if (b.size() == null && !"file".equals(b.type())) {
            throw new IllegalArgumentException(at + ".size is required for a " + b.type() + " backstore");
        }
        if (b.blockSize() != null && !(b.blockSize() == 512 || b.blockSize() == 1024
                || b.blockSize() == 2048 || b.blockSize() == 4096)) {
            throw new IllegalArgumentException(at + ".block_size " + b.blockSize() + " must be 512, 1024, 2048 or 4096");
        }
        if (b.size() != null) {
            long bytes = Sizes.parseBytes(at + ".size", b.size());
            int bs = b.blockSize() == null ? 512 : b.blockSize();
            if (bytes % bs != 0) {
                throw new IllegalArgumentException(at + ".size " + b.size() + " is not a multiple of block_size " + bs);
            }
        }
        checkPhysicalBlockSize(at, b);
        if (b.queueDepth() != null && (b.queueDepth() < 1 || b.queueDepth() > 4096)) {
            throw new IllegalArgumentException(at + ".queue_depth " + b.queueDepth() + " is out of range (1..4096)");
        }
    }

    /** SBC-4 §5.22.2: 2^LBPPBE logical blocks per physical block, the exponent being a 4-bit field. */
    private static void checkPhysicalBlockSize(String at, ServeConfig.Backstore b) {
        if (b.physicalBlockSize() == null) {
            return;
        }
        int bs = b.blockSize() == null ? 512 : b.blockSize();
        long pbs = b.physicalBlockSize();
        if (pbs < bs || pbs % bs != 0 || Long.bitCount(pbs / bs) != 1 || pbs / bs > 1 << 15) {
            throw new IllegalArgumentException(at + ".physical_block_size " + pbs + " must be block_size " + bs
                    + " times a power of two (1 to 32768), e.g. " + Math.max(bs, 4096));
        }
    }

    private static void checkChap(String at, String key, ServeConfig.Chap chap) {
        if (chap == null) {
            return;
        }
        String p = at + "." + key;
        if (chap.user() == null || chap.user().isEmpty() || chap.secret() == null) {
            throw new IllegalArgumentException(p + ": needs \"user\" and \"secret\"");
        }
        // RFC 7143 §12.1.3 recommends secrets of at least 96 bits; initiators such as open-iscsi reject shorter ones.
        if (chap.secret().length() < 12 || chap.secret().length() > 255) {
            throw new IllegalArgumentException(p + ".secret must be 12 to 255 characters (RFC 7143 §12.1.3)");
        }
        if ((chap.mutualUser() == null) != (chap.mutualSecret() == null)) {
            throw new IllegalArgumentException(p + ": mutual_user and mutual_secret go together");
        }
        if (chap.mutualSecret() != null) {
            if (chap.mutualSecret().length() < 12 || chap.mutualSecret().length() > 255) {
                throw new IllegalArgumentException(p + ".mutual_secret must be 12 to 255 characters");
            }
            if (chap.mutualSecret().equals(chap.secret())) {
                throw new IllegalArgumentException(p + ": mutual_secret must differ from secret (RFC 7143 §12.1.3)");
            }
        }
    }
}
