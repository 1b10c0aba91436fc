package io.hostwide.iscsi;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import io.hostwide.iscsi.spec.Bhs;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * DESIGN.md: no package cycle in a module; and inside iscsi-proto spec &lt;- pdu &lt;- login &lt;- discovery:
 * RFC 7143's facts depend on nothing, the PDU codec does not know login or discovery (STYLE.md 6: codec apart
 * from state), login does not know discovery. The rules' proof that they can fail is in blk's
 * {@code ArchitectureTest}.
 */
class ArchitectureTest {
    /** iscsi-proto's main classes only: where {@link Bhs} was loaded from. */
    private static final JavaClasses CLASSES = new ClassFileImporter()
            .importUrl(Bhs.class.getProtectionDomain().getCodeSource().getLocation());

    @Test
    void noPackageCycle() {
        slices().matching("io.hostwide.(**)").should().beFreeOfCycles().check(CLASSES);
    }

    @Test
    void specBelowPduBelowLoginBelowDiscovery() {
        layeredArchitecture().consideringOnlyDependenciesInLayers()
                .layer("discovery").definedBy("io.hostwide.iscsi.discovery..")
                .layer("login").definedBy("io.hostwide.iscsi.login..")
                .layer("pdu").definedBy("io.hostwide.iscsi.pdu..")
                .layer("spec").definedBy("io.hostwide.iscsi.spec..")
                .whereLayer("discovery").mayNotBeAccessedByAnyLayer()
                .whereLayer("login").mayOnlyBeAccessedByLayers("discovery")
                .whereLayer("pdu").mayOnlyBeAccessedByLayers("login", "discovery")
                .check(CLASSES);
    }
}
