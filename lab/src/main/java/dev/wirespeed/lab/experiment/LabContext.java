package dev.wirespeed.lab.experiment;

import dev.wirespeed.lab.env.CPrograms;
import dev.wirespeed.lab.env.Jvm;
import dev.wirespeed.lab.env.Placements;
import dev.wirespeed.lab.result.Percentile;
import dev.wirespeed.lab.result.Placement;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What the experiments of one lab run share: the mode, this machine's placements, the C programs,
 * how to start a {@code wirespeed} JVM, the notes for the report, and the progress line.
 *
 * <p>Thread safety: used by the lab's one driving thread.
 */
public final class LabContext {
    private final Mode mode;
    private final Jvm jvm;
    private final PrintWriter progressOut;
    private final boolean interactive;
    private final List<String> notes = new ArrayList<>();
    private final CPrograms programs = new CPrograms(this::note);
    private final long start = System.nanoTime();
    private List<Placement> placements;
    private int stepsDone;
    private int stepsTotal;

    /**
     * A context for one lab run.
     *
     * @param mode how long to measure
     * @param jvm how to start {@code wirespeed} JVMs
     * @param progressOut where the progress line goes (standard error)
     * @param interactive whether that is a terminal: the line is then redrawn in place
     */
    public LabContext(Mode mode, Jvm jvm, PrintWriter progressOut, boolean interactive) {
        this.mode = mode;
        this.jvm = jvm;
        this.progressOut = progressOut;
        this.interactive = interactive;
    }

    /** {@return how long to measure} */
    public Mode mode() {
        return mode;
    }

    /** {@return how to start {@code wirespeed} JVMs} */
    public Jvm jvm() {
        return jvm;
    }

    /** {@return the placements of server and client this machine has}, read once per run */
    public List<Placement> placements() {
        if (placements == null) {
            placements = Placements.available(this::note);
        }
        return placements;
    }

    /**
     * {@return a compiled C program, or empty (and a note) where there is no compiler}
     *
     * @param program which
     * @throws IOException if its source cannot be written out
     * @throws InterruptedException if interrupted while compiling
     */
    public Optional<Path> program(CPrograms.Program program) throws IOException, InterruptedException {
        return programs.get(program);
    }

    /**
     * Adds a note to the report, once however often it is said.
     *
     * @param note what the reader should know: a skipped row, an unpinned run
     */
    public void note(String note) {
        if (!notes.contains(note)) {
            notes.add(note);
        }
    }

    /**
     * {@return whether runs of {@code count} values decide {@code p}}; where they do not, notes under the
     * experiment's name that its targets on {@code p} are not judged
     *
     * @param experiment the experiment judging
     * @param p the percentile a target is on
     * @param count values measured per run
     */
    public boolean decides(String experiment, Percentile p, long count) {
        if (p.decidedBy(count)) {
            return true;
        }
        note(experiment + ": " + p.undecidedNote(count));
        return false;
    }

    /** {@return the notes so far} */
    public List<String> notes() {
        return List.copyOf(notes);
    }

    /**
     * Adds steps to the run's total, before it starts.
     *
     * @param steps how many
     */
    void addSteps(int steps) {
        stepsTotal += steps;
    }

    /**
     * Shows what is being measured, with an estimate of the time left from the pace so far.
     *
     * @param what the step, e.g. {@code tcp different cores: zero-copy run 2/3}
     */
    public void progress(String what) {
        long elapsed = (System.nanoTime() - start) / 1_000_000_000L;
        String eta = stepsDone == 0 ? "" : String.format(Locale.ROOT, ", about %ds left",
                elapsed * Math.max(0, stepsTotal - stepsDone) / stepsDone);
        String line = String.format(Locale.ROOT, "[%d/%d] %s (%ds elapsed%s)", stepsDone + 1, Math.max(stepsTotal,
                stepsDone + 1), what, elapsed, eta);
        if (interactive) {
            progressOut.print("\r\033[K" + line);
        } else {
            progressOut.println(line);
        }
        progressOut.flush();
    }

    /** Marks the step shown last as done. */
    public void stepDone() {
        stepsDone++;
    }

    /** Clears the progress line, before a table is printed. */
    void clearProgress() {
        if (interactive) {
            progressOut.print("\r\033[K");
            progressOut.flush();
        }
    }
}
