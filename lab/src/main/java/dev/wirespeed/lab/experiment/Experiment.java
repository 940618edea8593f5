package dev.wirespeed.lab.experiment;

import dev.wirespeed.lab.result.Finding;
import dev.wirespeed.lab.result.Measurement;
import dev.wirespeed.lab.result.SetAside;
import dev.wirespeed.lab.result.Table;
import java.io.IOException;
import java.util.List;

/**
 * One experiment of the lab: the question of one article (or one of our targets), asked on this
 * machine. Every experiment has the same shape, and the lab runs each the same way:
 *
 * <pre>{@code
 * cases(lab)                    the cells to measure, in table order (each knows its placement)
 *   -> open(lab).run(case)      one typed result R per case, through a runner that owns servers and files
 *   -> Results<C, R>            every case's result, in order
 *   -> measurements(results)    the rows of results.json, results.csv and the report's charts
 *   -> tables(results)          what the terminal shows
 *   -> findings(results)        the claims and targets, each judged by a Rule
 *   -> setAside(results)        the rows the lab does not trust, which judge no finding
 * }</pre>
 *
 * <p>Data flows one way: nothing after {@code run} measures, and nothing before it judges. A new
 * experiment is one implementation of this interface and one line in the lab's registry.
 *
 * <p>Thread safety: the lab calls an experiment from one thread.
 *
 * @param <C> a case: a value with {@code equals}, naming everything that varies between cells
 * @param <R> what running one case yields
 */
public interface Experiment<C, R> {
    /** {@return the name on the command line, e.g. {@code tcp}} */
    String name();

    /** {@return one line saying what the experiment reproduces or measures} */
    String description();

    /**
     * {@return whether {@code wirespeed lab} without names runs it} An experiment too long for the
     * default run's time says false: it runs when named, or with {@code --full}.
     */
    default boolean inDefaultRun() {
        return true;
    }

    /**
     * {@return whether it measures in the lab's own JVM} Such experiments pin the lab's thread to one
     * CPU, so the lab runs them after every experiment that starts processes.
     */
    default boolean inProcess() {
        return false;
    }

    /**
     * {@return the cases to measure, in the order of the experiment's tables}
     *
     * @param lab the run's context (mode, placements, C programs)
     * @throws IOException if finding them needs I/O that fails (compiling a C program)
     * @throws InterruptedException if interrupted
     */
    List<C> cases(LabContext lab) throws IOException, InterruptedException;

    /**
     * {@return how many progress steps running {@code kase} takes}, for the progress line's estimate
     *
     * @param kase one of {@link #cases}
     * @param lab the run's context
     */
    default int steps(C kase, LabContext lab) {
        return 1;
    }

    /**
     * {@return a runner for this lab run's cases}: it starts servers, writes files or pins threads as
     * it needs them, and undoes all of it when closed
     *
     * @param lab the run's context
     * @throws IOException if what the runner needs up front cannot be set up
     * @throws InterruptedException if interrupted
     */
    CaseRunner<C, R> open(LabContext lab) throws IOException, InterruptedException;

    /**
     * {@return the rows of results.json for every case}, in table order
     *
     * @param results every case's result
     * @param lab the run's context
     */
    List<Measurement> measurements(Results<C, R> results, LabContext lab);

    /**
     * {@return the tables the terminal shows}
     *
     * @param results every case's result
     * @param lab the run's context
     */
    List<Table> tables(Results<C, R> results, LabContext lab);

    /**
     * {@return the articles' claims and our targets, judged on {@code results}}
     *
     * @param results every case's result
     * @param lab the run's context
     */
    List<Finding> findings(Results<C, R> results, LabContext lab);

    /**
     * {@return the rows the lab measured but does not trust, each with why}, in table order: no finding
     * is judged on one (a finding that would read one is left out, and the notes say so), and the report
     * lists them under the experiment; none by default
     *
     * @param results every case's result
     * @param lab the run's context
     */
    default List<SetAside> setAside(Results<C, R> results, LabContext lab) {
        return List.of();
    }
}
