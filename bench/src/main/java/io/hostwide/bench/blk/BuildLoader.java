package io.hostwide.bench.blk;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;

/**
 * Loads everything of hostwide from one jar (nothing from the parent but the JDK), plus one driver class of
 * this bench build defined from its bytes, so two builds can run side by side in one JVM.
 */
final class BuildLoader extends URLClassLoader {
    private final String driverName;
    private final byte[] driver;

    BuildLoader(Path jar, String driverName, byte[] driver) throws IOException {
        super(new URL[] {jar.toUri().toURL()}, ClassLoader.getPlatformClassLoader());
        this.driverName = driverName;
        this.driver = driver;
    }

    /** The class file of {@code name} from this bench build. */
    static byte[] classBytes(String name) throws IOException {
        try (InputStream in = BuildLoader.class.getResourceAsStream("/" + name.replace('.', '/') + ".class")) {
            if (in == null) {
                throw new IllegalStateException("no class file for " + name);
            }
            return in.readAllBytes();
        }
    }

    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
        if (name.equals(driverName)) {
            return defineClass(name, driver, 0, driver.length);
        }
        return super.findClass(name);
    }
}
