package io.hostwide.scsi.mid;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * DESIGN.md: no package cycle in a module; the midlayer serves every upper-level driver and knows none of them
 * (sd is one, as in Linux). The rules' proof that they can fail is in blk's {@code ArchitectureTest}.
 */
class ArchitectureTest {
    /** scsi-mid's main classes only: where {@link ScsiHost} was loaded from. */
    private static final JavaClasses CLASSES = new ClassFileImporter()
            .importUrl(ScsiHost.class.getProtectionDomain().getCodeSource().getLocation());

    @Test
    void noPackageCycle() {
        slices().matching("io.hostwide.(**)").should().beFreeOfCycles().check(CLASSES);
    }

    @Test
    void midlayerDoesNotKnowSd() {
        noClasses().that().resideInAPackage("io.hostwide.scsi.mid..")
                .should().dependOnClassesThat().resideInAPackage("io.hostwide.scsi.sd..").check(CLASSES);
    }
}
