package io.hostwide.tcm.backstore.rbd;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * One single-node Ceph cluster per test JVM, from the repository's {@code bin/ceph-test-cluster} (issue 15):
 * started by the first test that asks for it, destroyed when the test plan ends (JUnit closes the root store's
 * resources also when tests failed). Tests take it as a parameter ({@code @ExtendWith(CephTestCluster.class)}) and
 * create their own images with {@link #createImage}.
 *
 * <p>Without the Ceph packages or with a JVM that cannot run the rbd backstore the tests are skipped with the
 * reason, unless {@code HOSTWIDE_REQUIRE_CEPH=1} is set (CI): then they fail, so CI can never pass by skipping.
 */
public final class CephTestCluster implements ParameterResolver, ExtensionContext.Store.CloseableResource {
    private static final AtomicInteger IMAGES = new AtomicInteger();
    private final Path dir;
    private final Path conf;
    private final Path script;
    private volatile boolean stopped;

    /** JUnit's instance, only resolving parameters; the cluster itself lives in the root store. */
    public CephTestCluster() {
        this.dir = null;
        this.conf = null;
        this.script = null;
    }

    private CephTestCluster(Path script, Path dir) {
        this.script = script;
        this.dir = dir;
        this.conf = dir.resolve("ceph.conf");
    }

    /** The cluster's client configuration, for {@code RbdConfig.conf}. */
    public String conf() { return conf.toString(); }

    public Path dir() { return dir; }

    /** Creates a fresh image of {@code sizeMiB} in pool rbd; returns its name. */
    public String createImage(String prefix, long sizeMiB) throws IOException, InterruptedException {
        String name = prefix + "-" + IMAGES.incrementAndGet();
        run(List.of("rbd", "-c", conf(), "create", "--size", sizeMiB + "M", "rbd/" + name), 120);
        return name;
    }

    /** Runs a Ceph command line ({@code rbd ...}, {@code ceph ...}) against this cluster; fails on a non-zero exit. */
    public String run(List<String> command, int timeoutSeconds) throws IOException, InterruptedException {
        Path out = Files.createTempFile("hostwide-ceph-cmd", ".out"); // not in dir: destroy removes that
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", command) + ": no answer in " + timeoutSeconds + " s");
        }
        String text = Files.readString(out, StandardCharsets.ISO_8859_1);
        Files.deleteIfExists(out);
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " exited " + p.exitValue() + ": " + text);
        }
        return text;
    }

    /**
     * Stops the daemons for good (a memstore OSD loses its objects, so this cluster is not started again): the
     * next test that asks for a cluster gets a fresh one.
     */
    public void stopDaemons() throws IOException, InterruptedException {
        stopped = true;
        script(List.of("stop", dir.toString()), 60);
    }

    private void start() throws IOException, InterruptedException {
        script(List.of("start", dir.toString()), 180);
    }

    private void script(List<String> args, int timeoutSeconds) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(script.toString());
        cmd.addAll(args);
        run(cmd, timeoutSeconds);
    }

    @Override
    public void close() throws IOException, InterruptedException {
        script(List.of("destroy", dir.toString()), 120);
    }

    @Override
    public boolean supportsParameter(ParameterContext p, ExtensionContext c) {
        return p.getParameter().getType() == CephTestCluster.class;
    }

    @Override
    public Object resolveParameter(ParameterContext p, ExtensionContext c) {
        ExtensionContext.Store store = c.getRoot().getStore(ExtensionContext.Namespace.GLOBAL);
        synchronized (CephTestCluster.class) {
            CephTestCluster cluster = store.getOrComputeIfAbsent(CephTestCluster.class, k -> startOne(),
                    CephTestCluster.class);
            if (cluster.stopped) {
                store.remove(CephTestCluster.class);
                try {
                    cluster.close();
                } catch (IOException | InterruptedException e) {
                    throw new IllegalStateException("destroying the stopped test cluster: " + e.getMessage(), e);
                }
                cluster = store.getOrComputeIfAbsent(CephTestCluster.class, k -> startOne(), CephTestCluster.class);
            }
            return cluster;
        }
    }

    /** Whether the environment demands the Ceph tests run (CI). */
    public static boolean required() { return "1".equals(System.getenv("HOSTWIDE_REQUIRE_CEPH")); }

    /** Skips (or, when required, fails) the calling test for {@code reason}. */
    public static void unavailable(String reason) {
        if (required()) {
            fail(reason + " (HOSTWIDE_REQUIRE_CEPH=1)");
        }
        assumeTrue(false, reason);
    }

    private static CephTestCluster startOne() {
        String why = Rbd.unavailable();
        if (why != null) {
            unavailable("RBD tests skipped: " + why);
        }
        for (String daemon : List.of("ceph-mon", "ceph-mgr", "ceph-osd", "rbd")) {
            if (!onPath(daemon)) {
                unavailable("RBD tests skipped: " + daemon + " is not installed (apt-get install ceph-mon ceph-mgr"
                        + " ceph-osd ceph-common)");
            }
        }
        Path script = repoRoot().resolve("bin/ceph-test-cluster");
        try {
            Path dir = Files.createTempDirectory("hostwide-ceph-");
            CephTestCluster c = new CephTestCluster(script, dir);
            try {
                c.start();
            } catch (IOException | InterruptedException e) {
                try {
                    c.close();
                } catch (IOException | InterruptedException suppressed) {
                    e.addSuppressed(suppressed);
                }
                throw e;
            }
            return c;
        } catch (IOException e) {
            throw new IllegalStateException("the Ceph test cluster did not start: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted starting the Ceph test cluster", e);
        }
    }

    private static boolean onPath(String program) {
        for (String d : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, program))) {
                return true;
            }
        }
        return Files.isExecutable(Path.of("/usr/bin", program));
    }

    /** The repository root: the first directory upwards from the working directory that has bin/ceph-test-cluster. */
    static Path repoRoot() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isExecutable(p.resolve("bin/ceph-test-cluster"))) {
                return p;
            }
        }
        throw new IllegalStateException("bin/ceph-test-cluster not found above " + Path.of("").toAbsolutePath());
    }
}
