package io.hostwide.tcm;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;

import java.util.List;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The target core's architecture as ArchUnit rules, for a package tree rooted at {@code root} laid out like
 * {@code io.hostwide.tcm}: the module itself, or a fixture with deliberate violations that shows each rule fails
 * (see {@link ArchitectureTest}). Bottom to top (README "Layers"):
 * <pre>
 * spi         Backstore, Fabric, TargetCommand, SenseReason: what the outside implements or sees
 * backstore   RAM, file, null backstores                       (spi)
 * lu          per-LU state                                     (spi)
 * port        targets, ports, ACLs                             (lu, spi)
 * dispatch    the handler's view of a command, tables, gates   (port, lu, spi)
 * command sets spc sbc pr alua xcopy, independent of each other (dispatch, port, lu, spi)
 * core        registry, pipeline, command lifecycle            (the command sets and below; no backstore)
 * tmf         task manager                                     (core and below)
 * root        TargetCore, the entry point                      (all but backstore)
 * </pre>
 */
final class TcmArchitecture {
    private TcmArchitecture() {}

    static final String ROOT = "io.hostwide.tcm";
    static final List<String> COMMAND_SETS = List.of("spc", "sbc", "pr", "alua", "xcopy");

    /**
     * No package cycle, the root package included: {@code a.b.(c..)} makes the root its own slice ("c") and every
     * package below it one more ("c.core"); {@code a.b.c.(**)} would leave the root package out.
     */
    static ArchRule noPackageCycles(String root) {
        int dot = root.lastIndexOf('.');
        return slices().matching(root.substring(0, dot) + ".(" + root.substring(dot + 1) + "..)")
                .should().beFreeOfCycles();
    }

    /** Each layer reaches only the layers below it, and every package is in a layer (a new one must be placed). */
    static ArchRule layers(String root) {
        String[] sets = COMMAND_SETS.stream().map(s -> root + "." + s + "..").toArray(String[]::new);
        return layeredArchitecture().consideringOnlyDependenciesInLayers()
                .ensureAllClassesAreContainedInArchitecture()
                .layer("Entry").definedBy(root)
                .layer("Tmf").definedBy(root + ".tmf..")
                .layer("Core").definedBy(root + ".core..")
                .layer("CommandSets").definedBy(sets)
                .layer("Dispatch").definedBy(root + ".dispatch..")
                .layer("Port").definedBy(root + ".port..")
                .layer("Lu").definedBy(root + ".lu..")
                .layer("Backstore").definedBy(root + ".backstore..")
                .layer("Spi").definedBy(root + ".spi..")
                .whereLayer("Entry").mayNotBeAccessedByAnyLayer()
                .whereLayer("Entry").mayOnlyAccessLayers("Tmf", "Core", "Dispatch", "Port", "Lu", "Spi")
                .whereLayer("Tmf").mayOnlyAccessLayers("Core", "Dispatch", "Port", "Lu", "Spi")
                .whereLayer("Core").mayOnlyAccessLayers("CommandSets", "Dispatch", "Port", "Lu", "Spi")
                .whereLayer("CommandSets").mayOnlyAccessLayers("Dispatch", "Port", "Lu", "Spi")
                .whereLayer("Dispatch").mayOnlyAccessLayers("Port", "Lu", "Spi")
                .whereLayer("Port").mayOnlyAccessLayers("Lu", "Spi")
                .whereLayer("Lu").mayOnlyAccessLayers("Spi")
                .whereLayer("Backstore").mayOnlyAccessLayers("Spi")
                .whereLayer("Backstore").mayNotBeAccessedByAnyLayer()
                .whereLayer("Spi").mayNotAccessAnyLayer();
    }

    /**
     * No command set uses another: what they share goes through dispatch, port, lu or spi, and only the core
     * puts their rows into one table.
     */
    static ArchRule commandSetsIndependent(String root) {
        return slices().assignedFrom(new SliceAssignment() {
            @Override
            public SliceIdentifier getIdentifierOf(JavaClass c) {
                for (String s : COMMAND_SETS) {
                    String p = root + "." + s;
                    if (c.getPackageName().equals(p) || c.getPackageName().startsWith(p + ".")) {
                        return SliceIdentifier.of(s);
                    }
                }
                return SliceIdentifier.ignore();
            }

            @Override
            public String getDescription() { return "the command sets " + COMMAND_SETS + " of " + root; }
        }).should().notDependOnEachOther();
    }
}
