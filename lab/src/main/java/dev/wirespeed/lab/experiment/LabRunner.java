package dev.wirespeed.lab.experiment;

import dev.wirespeed.lab.env.Jit;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Consumer;

/**
 * Runs experiments the one way every experiment is run: all cases up front (for the progress line),
 * then each experiment's cases through its runner, then its measurements, tables, findings and the
 * rows it sets aside. Experiments that start processes run first, in the order given; those that
 * measure in the lab's own JVM (and pin its thread) run after them. The first case waits until the
 * lab's JVM has stopped compiling its own start-up ({@value #QUIET_MILLIS} ms without a compilation,
 * at most {@value #MAX_WAIT_MILLIS} ms), which otherwise takes the CPUs the first measurement runs on.
 */
public final class LabRunner {
    /** How long the lab's JIT must be idle before the first case. */
    static final long QUIET_MILLIS = 300;
    /** The longest wait for it. */
    static final long MAX_WAIT_MILLIS = 5_000;

    private LabRunner() {
    }

    /**
     * Runs {@code experiments}.
     *
     * @param experiments the experiments, in report order
     * @param lab the run's context
     * @param done called with each experiment's outcome as soon as it has one (to print its tables)
     * @return the outcomes, in the order of {@code experiments}
     * @throws IOException if an experiment fails
     * @throws InterruptedException if interrupted
     */
    public static List<Outcome> run(List<? extends Experiment<?, ?>> experiments, LabContext lab, Consumer<Outcome> done)
            throws IOException, InterruptedException {
        List<Planned<?, ?>> plans = new ArrayList<>();
        for (Experiment<?, ?> experiment : experiments) {
            plans.add(plan(experiment, lab));
        }
        List<Planned<?, ?>> order = new ArrayList<>(plans);
        order.sort(Comparator.comparing(plan -> plan.experiment().inProcess()));
        Outcome[] outcomes = new Outcome[plans.size()];
        if (!Jit.awaitQuiet(QUIET_MILLIS, MAX_WAIT_MILLIS)) {
            lab.note("the lab's JVM was still compiling after " + MAX_WAIT_MILLIS + " ms: its first cases may "
                    + "have shared the CPUs with the JIT");
        }
        for (Planned<?, ?> plan : order) {
            Outcome outcome = plan.run(lab);
            lab.clearProgress();
            done.accept(outcome);
            outcomes[plans.indexOf(plan)] = outcome;
        }
        return List.of(outcomes);
    }

    private static <C, R> Planned<C, R> plan(Experiment<C, R> experiment, LabContext lab)
            throws IOException, InterruptedException {
        List<C> cases = experiment.cases(lab);
        for (C kase : cases) {
            lab.addSteps(experiment.steps(kase, lab));
        }
        return new Planned<>(experiment, cases);
    }

    /** An experiment with its cases, ready to run. */
    private record Planned<C, R>(Experiment<C, R> experiment, List<C> cases) {
        Outcome run(LabContext lab) throws IOException, InterruptedException {
            Results<C, R> results = new Results<>();
            try (CaseRunner<C, R> runner = experiment.open(lab)) {
                for (C kase : cases) {
                    results.put(kase, runner.run(kase));
                }
            }
            return new Outcome(experiment.name(), experiment.description(), experiment.measurements(results, lab),
                    experiment.tables(results, lab), experiment.findings(results, lab),
                    experiment.setAside(results, lab));
        }
    }
}
