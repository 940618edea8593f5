package dev.wirespeed.lab.experiments.stream;

import dev.wirespeed.lab.cli.Args;
import dev.wirespeed.lab.cli.ClientCommand;
import dev.wirespeed.lab.experiment.Mode;
import java.util.Locale;
import java.util.function.UnaryOperator;

/**
 * The lab's check of its own clock: a row's client run once more, counting frames instead of timing
 * rounds, so that the timed figure can be held against a figure no timer shaped ({@link Throughput#setAside()}).
 * The stream experiments' Java rows and every {@code stream-tls} row run it, once per row.
 */
final class UntimedPass {
    /** The fewest frames a round of an untimed pass counts. */
    static final long LEAST_FRAMES = 20_000;

    private UntimedPass() {
    }

    /**
     * {@return whether a cell of {@code pass} runs the untimed pass after its timed run(s)}: once per row,
     * in its first pass, or in its only cell where it runs in no passes
     *
     * @param pass the cell's pass from 1, or 0 for a row that runs in no passes
     */
    static boolean runsIn(int pass) {
        return pass <= 1;
    }

    /**
     * {@return what gives a client's line an untimed pass after the timed runs that read {@code timed}}: as many
     * rounds as a timed run has, the first its warm-up, each of a count of frames, as many as a timed round
     * of {@code roundMillis} read at their median rate (at least {@value #LEAST_FRAMES}), so that the pass
     * reads for about as long as a timed run did, with no clock in the way
     *
     * @param timed what the timed runs read
     * @param mode the run's mode: its measured rounds
     * @param roundMillis the length of a timed round
     */
    static UnaryOperator<Args> options(Throughput timed, Mode mode, int roundMillis) {
        double rate = timed.msgPerSec() == null ? 0 : timed.msgPerSec().median();
        long frames = Math.max(LEAST_FRAMES, (long) (rate * roundMillis / 1e3));
        return client -> client.with(ClientCommand.MESSAGES, frames).with(ClientCommand.ROUNDS, mode.measuredRounds() + 1L);
    }

    /**
     * {@return the table note saying what the pass is and what it sets aside}
     *
     * @param whose whose client ran it, e.g. {@code each Java row's client}
     */
    static String note(String whose) {
        return String.format(Locale.ROOT, "%s also ran once counting frames instead of timing rounds: a row whose "
                + "timed median strays more than %.0f%% from that pass's, or whose rounds spread wider than their "
                + "median, is set aside and judges no finding", whose, 100 * Throughput.TIMED_TOLERANCE);
    }
}
