package io.hostwide.management.lio;

import io.hostwide.management.config.ServeConfig;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The saveconfig.json files under src/test/resources/lio, with {@code @DIR@} (image directories) filled in. */
final class LioFixtures {
    private LioFixtures() {
    }

    static String text(String name, Path dir) {
        try (InputStream in = LioFixtures.class.getResourceAsStream("/lio/" + name)) {
            if (in == null) {
                throw new IllegalStateException("no test resource /lio/" + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("@DIR@", dir.toString());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The configuration with hostwide's defaults written out, so that "unset" and "set to the default" compare equal. */
    static ServeConfig normalized(ServeConfig c) {
        Map<String, ServeConfig.Backstore> stores = new LinkedHashMap<>();
        c.backstores().forEach((n, b) -> stores.put(n, new ServeConfig.Backstore(b.type(), b.size(), b.path(),
                b.blockSize() == null ? 512 : b.blockSize(), b.thin() == null || b.thin(), b.queueDepth(),
                b.writeCache() == null || b.writeCache(), b.direct(), b.removable(), b.writeProtect(),
                b.physicalBlockSize(), b.sanitizeRate(), b.pool(), b.image(), b.conf(), b.id(), b.keyring(),
                b.opTimeout(), b.reservations())));
        ServeConfig.Session s = c.session() == null ? new ServeConfig.Session(128, null, null)
                : new ServeConfig.Session(c.session().queueDepth() == null ? 128 : c.session().queueDepth(),
                c.session().nopInIntervalMs(), c.session().nopInTimeoutMs());
        return new ServeConfig(c.portals(), s, c.discoveryAuth(), stores,
                c.targets() == null ? List.of() : c.targets(), c.limits(), c.metrics());
    }
}
