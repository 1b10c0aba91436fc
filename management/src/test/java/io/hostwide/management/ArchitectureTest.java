package io.hostwide.management;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * DESIGN.md: no package cycle in a module. Within management, the configuration format (config) and the text
 * helpers (util) sit below what runs a target: the file format is read and checked without building anything, so
 * tools (and tests) can load a configuration with no target core in sight. The rules' proof that they can fail is
 * in blk's and tcm's {@code ArchitectureTest}.
 */
class ArchitectureTest {
    /** management's main classes only: where {@link TargetAssembly} was loaded from. */
    private static final JavaClasses CLASSES = new ClassFileImporter()
            .importUrl(TargetAssembly.class.getProtectionDomain().getCodeSource().getLocation());

    @Test
    void noPackageCycle() {
        slices().matching("io.hostwide.(**)").should().beFreeOfCycles().check(CLASSES);
    }

    @Test
    void theConfigurationFormatBuildsNothing() {
        noClasses().that().resideInAnyPackage("io.hostwide.management.config..", "io.hostwide.management.util..",
                        "io.hostwide.management.lio..")
                .should().dependOnClassesThat().resideInAnyPackage("io.hostwide.management", "io.hostwide.tcm..")
                .because("a configuration is read and checked before (and without) a target core")
                .check(CLASSES);
    }
}
