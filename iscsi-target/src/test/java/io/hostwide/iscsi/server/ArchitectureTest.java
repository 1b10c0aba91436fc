package io.hostwide.iscsi.server;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import io.hostwide.scsi.spec.Asc;
import io.hostwide.scsi.spec.FixedSense;
import io.hostwide.scsi.spec.LunAddress;
import io.hostwide.scsi.spec.SenseKey;
import io.hostwide.scsi.spec.TaskAttribute;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.belongToAnyOf;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * DESIGN.md: no package cycle in a module; and the fabric carries SCSI, it does not speak it (STYLE.md 3 and the
 * jSCSI anti-pattern). Of the SCSI facts it uses the LUN address and the task attribute it maps, and for
 * AsyncEvent 0 (RFC 7143 §11.9), which carries a unit attention's sense, the ASC it chooses by and the fixed sense
 * encoder; never a CDB layout, opcode, status, mode or VPD page. The rules' proof that they can fail is in blk's
 * {@code ArchitectureTest}.
 */
class ArchitectureTest {
    /** iscsi-target's main classes only: where {@link IscsiTargetServer} was loaded from. */
    private static final JavaClasses CLASSES = new ClassFileImporter()
            .importUrl(IscsiTargetServer.class.getProtectionDomain().getCodeSource().getLocation());

    @Test
    void noPackageCycle() {
        slices().matching("io.hostwide.(**)").should().beFreeOfCycles().check(CLASSES);
    }

    @Test
    void noScsiSemanticsInTheTransport() {
        noClasses().should().dependOnClassesThat(resideInAPackage("io.hostwide.scsi.spec")
                        .and(not(belongToAnyOf(LunAddress.class, TaskAttribute.class, Asc.class, SenseKey.class,
                                FixedSense.class))))
                .because("CDBs, status and sense are the target core's; the fabric only carries them")
                .check(CLASSES);
    }
}
