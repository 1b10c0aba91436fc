package io.hostwide.cli.lab;

import java.util.List;
import java.util.Optional;

/** The registered experiments, in {@code --list} order. */
final class Experiments {
    private Experiments() {
    }

    static List<Experiment> all() {
        return List.of(new FairShareExperiment(), new HddMergeExperiment(), new RestartsExperiment(),
                new SharedTagsExperiment(), new TargetQueuesExperiment());
    }

    static Optional<Experiment> byName(String name) {
        return all().stream().filter(e -> e.name().equals(name)).findFirst();
    }

    static String names() {
        return String.join(", ", all().stream().map(Experiment::name).toList());
    }
}
