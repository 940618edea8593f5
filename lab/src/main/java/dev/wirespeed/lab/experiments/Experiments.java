package dev.wirespeed.lab.experiments;

import dev.wirespeed.lab.experiment.Experiment;
import dev.wirespeed.lab.experiments.files.FilesExperiment;
import dev.wirespeed.lab.experiments.hostile.HostileExperiment;
import dev.wirespeed.lab.experiments.idle.IdleExperiment;
import dev.wirespeed.lab.experiments.latency.LatencyExperiment;
import dev.wirespeed.lab.experiments.many.ManyExperiment;
import dev.wirespeed.lab.experiments.readall.ReadAllExperiment;
import dev.wirespeed.lab.experiments.shm.ShmExperiment;
import dev.wirespeed.lab.experiments.stream.Link;
import dev.wirespeed.lab.experiments.stream.StreamExperiment;
import dev.wirespeed.lab.experiments.stream.TlsStreamExperiment;
import dev.wirespeed.lab.experiments.tails.TailsExperiment;
import java.util.List;
import java.util.Optional;

/**
 * The lab's registry: every experiment, in report order. The command line, the progress line, the
 * terminal tables, {@code results.json}, {@code results.csv} and the report all follow this list;
 * adding an experiment is adding its line here.
 */
public final class Experiments {
    /** Every experiment, in report order. */
    public static final List<Experiment<?, ?>> ALL = List.of(
            new StreamExperiment(Link.TCP),
            new StreamExperiment(Link.UNIX),
            new StreamExperiment(Link.PIPE),
            new TlsStreamExperiment(),
            new LatencyExperiment(),
            new IdleExperiment(),
            new ShmExperiment(),
            new TailsExperiment(),
            new ManyExperiment(),
            new HostileExperiment(),
            new FilesExperiment(),
            new ReadAllExperiment());

    private Experiments() {
    }

    /** {@return the names of every experiment, in report order} */
    public static List<String> names() {
        return ALL.stream().map(Experiment::name).toList();
    }

    /**
     * {@return the names of the experiments a run without names runs, in report order}
     *
     * @param full whether the run is {@code --full}, which runs every experiment
     */
    public static List<String> names(boolean full) {
        return ALL.stream().filter(e -> full || e.inDefaultRun()).map(Experiment::name).toList();
    }

    /**
     * {@return the experiment of a name}
     *
     * @param name as on the command line
     */
    public static Optional<Experiment<?, ?>> byName(String name) {
        return ALL.stream().filter(e -> e.name().equals(name)).findFirst();
    }
}
