package io.hostwide.loop;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * DESIGN.md: no package cycle in a module (one package today; the rule holds as packages are added). The rule and its
 * proof that it can fail are in blk's {@code ArchitectureTest}.
 */
class ArchitectureTest {
    /** This module's main classes only: where {@link LoopHba} was loaded from. */
    private static final JavaClasses CLASSES = new ClassFileImporter()
            .importUrl(LoopHba.class.getProtectionDomain().getCodeSource().getLocation());

    @Test
    void noPackageCycle() {
        slices().matching("io.hostwide.(**)").should().beFreeOfCycles().check(CLASSES);
    }
}
