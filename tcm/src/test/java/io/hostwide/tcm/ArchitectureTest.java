package io.hostwide.tcm;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import org.junit.jupiter.api.Test;

import java.util.List;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 11 and DESIGN.md ("no module has a package cycle; ArchUnit rules that fail when violated keep it so"): the
 * module's own classes pass {@link TcmArchitecture}'s rules, and a fixture that breaks each rule once
 * ({@code io.hostwide.tcm.archfixture}) makes each of them report exactly the bad dependency.
 */
class ArchitectureTest {
    private static final String FIXTURE = TcmArchitecture.ROOT + ".archfixture";

    private static final JavaClasses TCM = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages(TcmArchitecture.ROOT);

    private static final JavaClasses BROKEN = new ClassFileImporter().importPackages(FIXTURE);

    @Test
    void theImportHoldsTheModuleAndNoTestClasses() {
        assertThat(TCM.contain(TargetCore.class)).isTrue();
        assertThat(TCM.stream().map(c -> c.getPackageName()).distinct())
                .contains(TcmArchitecture.ROOT, TcmArchitecture.ROOT + ".spi", TcmArchitecture.ROOT + ".core")
                .noneMatch(p -> p.startsWith(FIXTURE));
        assertThat(BROKEN.stream().map(JavaClass::getSimpleName)).contains("Entry", "Manager", "Engine", "BlockRows",
                "SpcRows", "Row", "Port", "Unit", "Ram", "Storage");
    }

    @Test
    void noPackageCycle() {
        TcmArchitecture.noPackageCycles(TcmArchitecture.ROOT).check(TCM);
    }

    @Test
    void eachLayerReachesOnlyTheLayersBelowIt() {
        TcmArchitecture.layers(TcmArchitecture.ROOT).check(TCM);
    }

    @Test
    void noCommandSetUsesAnother() {
        TcmArchitecture.commandSetsIndependent(TcmArchitecture.ROOT).check(TCM);
    }

    @Test
    void theCycleRuleReportsBothCyclesOfTheFixtureTheOneThroughTheRootPackageIncluded() {
        List<String> v = violations(TcmArchitecture.noPackageCycles(FIXTURE));
        assertThat(v).anyMatch(d -> d.contains("Cycle detected: Slice archfixture -> Slice archfixture.tmf -> "
                + "Slice archfixture "));
        assertThat(v).anyMatch(d -> d.contains("Cycle detected: Slice archfixture.core -> Slice archfixture.lu -> "
                + "Slice archfixture.core "));
    }

    /** Why the cycle rule's slices are {@code a.b.(c..)}: with {@code a.b.c.(**)} the root package is no slice. */
    @Test
    void aSliceOfEachPackageBelowTheRootMissesTheCycleThroughTheRootPackage() {
        List<String> v = violations(slices().matching(FIXTURE + ".(**)").should().beFreeOfCycles());
        assertThat(v).anyMatch(d -> d.contains("Cycle detected: Slice core -> Slice lu -> Slice core "));
        assertThat(v).noneMatch(d -> d.contains("Manager.entry"));
    }

    @Test
    void theLayerRuleReportsBothReachUpsOfTheFixtureAndNothingElse() {
        List<String> v = violations(TcmArchitecture.layers(FIXTURE));
        assertThat(v).anyMatch(d -> d.contains("<" + FIXTURE + ".lu.Unit.engine> has type <" + FIXTURE
                + ".core.Engine>"));
        assertThat(v).anyMatch(d -> d.contains("<" + FIXTURE + ".tmf.Manager.entry> has type <" + FIXTURE
                + ".Entry>"));
        assertThat(v).allMatch(d -> d.contains("Unit.engine") || d.contains("Manager.entry"));
    }

    @Test
    void theCommandSetRuleReportsSbcUsingSpcAndNothingElse() {
        List<String> v = violations(TcmArchitecture.commandSetsIndependent(FIXTURE));
        assertThat(v).singleElement().asString().contains("Slice sbc depends on Slice spc")
                .contains("<" + FIXTURE + ".sbc.BlockRows.spcRows> has type <" + FIXTURE + ".spc.SpcRows>");
    }

    /** The rule's failure details, white space collapsed (cycle reports break lines between slices). */
    private static List<String> violations(ArchRule rule) {
        EvaluationResult r = rule.evaluate(BROKEN);
        assertThat(r.hasViolation()).as("the fixture breaks " + rule.getDescription()).isTrue();
        return r.getFailureReport().getDetails().stream().map(d -> d.replaceAll("\\s+", " ")).toList();
    }
}
