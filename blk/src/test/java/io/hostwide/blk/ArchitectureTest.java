package io.hostwide.blk;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import io.hostwide.blk.archfixture.ping.Ping;
import io.hostwide.blk.archfixture.pong.Pong;
import java.net.URL;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * DESIGN.md: no package cycle in a module, and inside blk the core knows neither its consumer API nor the null
 * device built on both; the executors and stat records sit below the core. The last two tests show each rule
 * reports a violation planted in test fixtures, so a green run means the rules found nothing, not that they
 * checked nothing.
 */
class ArchitectureTest {
    /** blk's main classes only (not its tests, not sbitmap): where RequestQueue was loaded from. */
    private static final URL MAIN = RequestQueue.class.getProtectionDomain().getCodeSource().getLocation();
    private static final JavaClasses CLASSES = new ClassFileImporter().importUrl(MAIN);

    static final ArchRule NO_PACKAGE_CYCLE = slices().matching("io.hostwide.(**)").should().beFreeOfCycles();

    static final ArchRule LAYERS = layeredArchitecture().consideringOnlyDependenciesInLayers()
            .layer("device").definedBy("io.hostwide.blk.nullb..")
            .layer("api").definedBy("io.hostwide.blk.api..")
            .layer("core").definedBy("io.hostwide.blk")
            .layer("base").definedBy("io.hostwide.blk.exec..", "io.hostwide.blk.stat..")
            .whereLayer("device").mayNotBeAccessedByAnyLayer()
            .whereLayer("api").mayOnlyBeAccessedByLayers("device")
            .whereLayer("core").mayOnlyBeAccessedByLayers("api", "device")
            .whereLayer("base").mayOnlyBeAccessedByLayers("core", "api", "device");

    @Test
    void noPackageCycle() {
        NO_PACKAGE_CYCLE.check(CLASSES);
    }

    @Test
    void coreDoesNotKnowTheApiOrTheNullDevice() {
        LAYERS.check(CLASSES);
    }

    @Test
    void aPackageCycleIsReported() {
        EvaluationResult r = NO_PACKAGE_CYCLE.evaluate(mainPlus(Ping.class, Pong.class));
        assertThat(r.hasViolation()).isTrue();
        assertThat(r.getFailureReport().toString()).contains(Ping.class.getName(), Pong.class.getName());
    }

    @Test
    void theCoreReachingTheNullDeviceIsReported() {
        EvaluationResult r = LAYERS.evaluate(mainPlus(CoreReachingUp.class));
        assertThat(r.hasViolation()).isTrue();
        assertThat(r.getFailureReport().getDetails()).isNotEmpty().allSatisfy(d -> assertThat(d)
                .startsWith("Method <" + CoreReachingUp.class.getName()).contains("io.hostwide.blk.nullb.NullConfig"));
    }

    /** blk's main classes and the given test fixtures, each imported from its own class file. */
    private static JavaClasses mainPlus(Class<?>... fixtures) {
        List<URL> urls = new ArrayList<>(List.of(MAIN));
        for (Class<?> c : fixtures) {
            urls.add(c.getResource(c.getSimpleName() + ".class"));
        }
        return new ClassFileImporter().importUrls(urls);
    }
}
