package io.hostwide.cli;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.stream.Stream;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Architecture rules the Maven reactor cannot state (DESIGN.md: "ArchUnit rules that fail when violated"). The cli
 * module sees every other module, so this is where a rule over all of them can run. Each rule is proved able to
 * fail on fixtures (test classes under {@code archfixture} packages) that break it on purpose; the real check
 * imports main classes only, so the fixtures never count there.
 */
class LayeringTest {

    /** Every main class of every module: the cli test classpath holds them all. */
    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.hostwide");

    /** The same, plus the deliberately violating fixtures. */
    private static final JavaClasses MAIN_AND_FIXTURES = new ClassFileImporter()
            .withImportOption(location -> location.contains("/archfixture/")
                    || ImportOption.Predefined.DO_NOT_INCLUDE_TESTS.includes(location))
            .importPackages("io.hostwide");

    private static final String CLI = "io.hostwide.cli";
    /** The subcommands' packages (serve also holds admin, copy also verify). */
    private static final List<String> COMMANDS = List.of("bench", "config", "copy", "lab", "ls", "serve", "stat", "targetcli");

    /**
     * cli: Main over the commands, the commands over cli.load (the load generator bench and lab drive, the device
     * opener ls and stat use), everything over cli.util. A command reaching into another one means a shared piece
     * lives in the wrong package: move it down into load or util.
     */
    static final ArchRule CLI_LAYERS = cliLayers();

    private static ArchRule cliLayers() {
        var arch = layeredArchitecture().consideringOnlyDependenciesInLayers()
                .ensureAllClassesAreContainedInArchitectureIgnoring(not(resideInAPackage(CLI + "..")))
                .layer("Main").definedBy(CLI)
                .layer("load").definedBy(CLI + ".load..")
                .layer("util").definedBy(CLI + ".util..");
        for (String c : COMMANDS) {
            arch = arch.layer(c).definedBy(CLI + "." + c + "..");
        }
        arch = arch.whereLayer("Main").mayNotBeAccessedByAnyLayer();
        for (String c : COMMANDS) {
            arch = arch.whereLayer(c).mayOnlyBeAccessedByLayers("Main");
        }
        String[] aboveLoad = Stream.concat(Stream.of("Main"), COMMANDS.stream()).toArray(String[]::new);
        String[] aboveUtil = Stream.concat(Stream.of(aboveLoad), Stream.of("load")).toArray(String[]::new);
        return arch.whereLayer("load").mayOnlyBeAccessedByLayers(aboveLoad)
                .whereLayer("util").mayOnlyBeAccessedByLayers(aboveUtil);
    }

    /** No package cycle among cli's packages (bin/package-cycles checks the same from jdeps, per module). */
    static final ArchRule CLI_FREE_OF_CYCLES = slices().matching(CLI + ".(*)..").should().beFreeOfCycles();

    /**
     * The two stacks meet only in tcm_loop (io.hostwide.loop) and in the cli; management (serve) is target side. scsi.spec is neither side: the
     * target core's handlers and the midlayer both read its facts (opcodes, sense codes), as iscsi-proto serves
     * both iSCSI ends.
     */
    private static final String[] INITIATOR_SIDE = {
        "io.hostwide.scsi.mid..", "io.hostwide.scsi.sd..", "io.hostwide.iscsi.initiator.."};
    private static final String[] TARGET_SIDE = {
        "io.hostwide.tcm..", "io.hostwide.iscsi.server..", "io.hostwide.management.."};

    static final ArchRule INITIATOR_DOES_NOT_USE_TARGET = noClasses().that().resideInAnyPackage(INITIATOR_SIDE)
            .should().dependOnClassesThat().resideInAnyPackage(TARGET_SIDE)
            .because("the initiator side talks to a target only through an LLD (tcm_loop or iSCSI)");

    static final ArchRule TARGET_DOES_NOT_USE_INITIATOR = noClasses().that().resideInAnyPackage(TARGET_SIDE)
            .should().dependOnClassesThat().resideInAnyPackage(INITIATOR_SIDE)
            .because("the target core and its fabrics serve any initiator; only tcm_loop joins the two");

    @Test
    void commandsDependOnlyOnTheSharedPackagesBelowThem() {
        CLI_LAYERS.check(MAIN);
    }

    @Test
    void cliPackagesHaveNoCycle() {
        CLI_FREE_OF_CYCLES.check(MAIN);
    }

    @Test
    void initiatorSideDoesNotDependOnTargetSide() {
        INITIATOR_DOES_NOT_USE_TARGET.check(MAIN);
    }

    @Test
    void targetSideDoesNotDependOnInitiatorSide() {
        TARGET_DOES_NOT_USE_INITIATOR.check(MAIN);
    }

    @Test
    void theRulesReportTheFixturesThatBreakThem() {
        assertThat(violations(CLI_LAYERS)).as("command -> command")
                .anyMatch(d -> d.contains("BenchReachesStat") && d.contains("StatReachesBench"));
        assertThat(violations(CLI_FREE_OF_CYCLES)).as("bench <-> stat cycle")
                .anyMatch(d -> d.contains("Cycle detected: Slice bench -> ") && d.contains("Slice stat"));
        assertThat(violations(INITIATOR_DOES_NOT_USE_TARGET)).as("scsi.mid -> tcm")
                .anyMatch(d -> d.contains("InitiatorReachesTarget") && d.contains("io.hostwide.tcm.spi.SenseReason"));
        assertThat(violations(TARGET_DOES_NOT_USE_INITIATOR)).as("tcm -> scsi.sd")
                .anyMatch(d -> d.contains("TargetReachesInitiator") && d.contains("io.hostwide.scsi.sd.ScsiDisk"));
    }

    /** The rule's violations over main classes plus fixtures; with the fixtures removed, the rule must pass. */
    private static List<String> violations(ArchRule rule) {
        EvaluationResult result = rule.evaluate(MAIN_AND_FIXTURES);
        assertThat(result.hasViolation()).as("%s fails on its fixture", rule.getDescription()).isTrue();
        return result.getFailureReport().getDetails();
    }
}
