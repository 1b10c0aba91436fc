package io.hostwide.tcm.backstore;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.file.Path;

/**
 * The entry of a class of this package compiled for Java 22 (src/main/java22: the FFM API, in the multi-release
 * jar), found only where it can work: a 22+ runtime on Linux. Elsewhere, the reason it is not there, for the
 * backstore to say instead of failing.
 *
 * @param open its static {@code open(Path)}, or null when unavailable
 * @param unavailable why it is unavailable, or null when it is available
 */
record Java22Native(MethodHandle open, String unavailable) {

    /**
     * @param simpleName the class's name in this package
     * @param returns what its {@code open(Path)} returns
     * @param what the native support it gives, for messages ("block ioctls", "fallocate/SEEK_HOLE")
     */
    static Java22Native find(String simpleName, Class<?> returns, String what) {
        return find(simpleName, returns, what, Runtime.version().feature(), System.getProperty("os.name", ""));
    }

    /** As {@link #find(String, Class, String)} for the given runtime feature version and OS (tests: Java 21). */
    static Java22Native find(String simpleName, Class<?> returns, String what, int feature, String osName) {
        if (feature < 22) {
            return new Java22Native(null, "Java " + feature + " has no Foreign Function & Memory API (22+)");
        }
        if (!osName.startsWith("Linux")) {
            return new Java22Native(null, what + " are used on Linux only");
        }
        try {
            Class<?> c = Class.forName(Java22Native.class.getPackageName() + "." + simpleName);
            return new Java22Native(MethodHandles.lookup().findStatic(c, "open",
                    MethodType.methodType(returns, Path.class)), null);
        } catch (ReflectiveOperationException | LinkageError e) { // incl. UnsupportedClassVersionError
            return new Java22Native(null, "native " + what + " did not load: " + e);
        }
    }
}
