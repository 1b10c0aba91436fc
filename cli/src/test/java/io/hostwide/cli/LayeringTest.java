package io.hostwide.cli;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/** DESIGN.md: one module per layer, dependencies point one way. */
class LayeringTest {

    private static final JavaClasses CLASSES = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.hostwide");

    private static void layerMayNotReach(String layer, String... above) {
        noClasses().that().resideInAPackage("io.hostwide." + layer + "..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        java.util.Arrays.stream(above).map(a -> "io.hostwide." + a + "..").toArray(String[]::new))
                .allowEmptyShould(true)
                .check(CLASSES);
    }

    @Test
    void sbitmapDependsOnNothing() {
        layerMayNotReach("sbitmap", "blk", "scsi", "iscsi", "cli");
    }

    @Test
    void blkDependsOnlyOnSbitmap() {
        layerMayNotReach("blk", "scsi", "iscsi", "cli");
    }

    @Test
    void scsiDoesNotReachUp() {
        layerMayNotReach("scsi", "iscsi", "cli");
    }

    @Test
    void tcmDoesNotReachUp() {
        layerMayNotReach("tcm", "iscsi", "loop", "scsi.mid", "scsi.sd", "cli");
    }

    @Test
    void iscsiDoesNotReachUp() {
        layerMayNotReach("iscsi", "cli");
    }

    @Test
    void noCyclesBetweenLayers() {
        slices().matching("io.hostwide.(*)..").should().beFreeOfCycles()
                .allowEmptyShould(true)
                .check(CLASSES);
    }
}
