package dev.wirespeed.lab.experiment;

import java.util.Locale;

/** How long a lab run measures. */
public enum Mode {
    /** One run per cell, short rounds: a first look and a smoke test, not a measurement to quote. */
    QUICK(1, 2, 1, 1),
    /** Three runs per cell, one measured round each after a warm-up round. */
    DEFAULT(3, 2, 2, 1),
    /** Five runs per cell, rounds twice as long, five measured rounds each. */
    FULL(5, 6, 8, 5);

    private final int runs;
    private final int rounds;
    private final int messageQuarters;
    private final int iperfSeconds;

    Mode(int runs, int rounds, int messageQuarters, int iperfSeconds) {
        this.runs = runs;
        this.rounds = rounds;
        this.messageQuarters = messageQuarters;
        this.iperfSeconds = iperfSeconds;
    }

    /** {@return client runs per cell, each a fresh process} */
    public int runs() {
        return runs;
    }

    /** {@return rounds per client run, the first a warm-up} */
    public int rounds() {
        return rounds;
    }

    /**
     * {@return {@code base} frames scaled to this mode's round length}: a quarter of it in quick mode,
     * half by default, twice with {@code --full}; at least 1
     *
     * @param base the frames of a full-length round
     */
    public long messages(long base) {
        return Math.max(1, base * messageQuarters / 4);
    }

    /** {@return seconds per iperf3 run} */
    public int iperfSeconds() {
        return iperfSeconds;
    }

    /** {@return the lower-case name, as results and the command line write it} */
    @com.fasterxml.jackson.annotation.JsonValue
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }
}
