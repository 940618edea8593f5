package dev.wirespeed.lab.experiment;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The state of one {@code wirespeed lab} run that experiments share: how hard to measure, where
 * results go, and the progress line.
 */
final class LabRun {
    /** How long to measure. */
    enum Mode {
        /** One run per cell, short rounds: for CI and a first look (about a minute). */
        QUICK(1, 2, 1, 1),
        /** Three runs per cell, each one measured round: the default, within about five minutes on two cores. */
        DEFAULT(3, 2, 2, 1),
        /** Five runs per cell, rounds twice as long. */
        FULL(5, 6, 8, 5);

        /** Client runs per cell. */
        final int runs;
        /** Rounds per run, the first a warm-up. */
        final int rounds;
        /** Round length, in quarters of the base frames per round. */
        final int messageMultiplier;
        /** Seconds per iperf3 run. */
        final int iperfSeconds;

        Mode(int runs, int rounds, int messageMultiplier, int iperfSeconds) {
            this.runs = runs;
            this.rounds = rounds;
            this.messageMultiplier = messageMultiplier;
            this.iperfSeconds = iperfSeconds;
        }
    }

    final Mode mode;
    final PrintWriter out;
    final PrintWriter err;
    final boolean interactive;
    final List<Row> rows = new ArrayList<>();
    final List<Finding> findings = new ArrayList<>();
    final List<String> notes = new ArrayList<>();
    private final long start = System.nanoTime();
    private int stepsDone;
    private int stepsTotal;

    LabRun(Mode mode, PrintWriter out, PrintWriter err, boolean interactive) {
        this.mode = mode;
        this.out = out;
        this.err = err;
        this.interactive = interactive;
    }

    void addSteps(int steps) {
        stepsTotal += steps;
    }

    /** Shows what is being measured and an ETA from the pace so far. */
    void progress(String what) {
        long elapsed = (System.nanoTime() - start) / 1_000_000_000L;
        String eta = stepsDone == 0 ? "" : String.format(Locale.ROOT, ", about %ds left",
                elapsed * (stepsTotal - stepsDone) / stepsDone);
        String line = String.format(Locale.ROOT, "[%d/%d] %s (%ds elapsed%s)", stepsDone + 1, stepsTotal, what,
                elapsed, eta);
        if (interactive) {
            err.print("\r\033[K" + line);
        } else {
            err.println(line);
        }
        err.flush();
    }

    void stepDone() {
        stepsDone++;
    }

    void clearProgress() {
        if (interactive) {
            err.print("\r\033[K");
            err.flush();
        }
    }
}
