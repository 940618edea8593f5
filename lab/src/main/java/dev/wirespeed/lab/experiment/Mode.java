package dev.wirespeed.lab.experiment;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** How long a lab run measures. */
public enum Mode {
    /** One short run per cell, the warm-up not waiting for the JIT: a first look and a smoke test, not figures to quote. */
    QUICK(1, 1, 50, false, 25, 2, 1),
    /** Three runs per latency cell; one stream client per cell, four rounds of 100 ms after its warm-up. */
    DEFAULT(3, 1, 200, true, 100, 4, 1),
    /** Five runs per latency cell; three stream clients per cell, each ten rounds of 200 ms after a longer warm-up. */
    FULL(5, 3, 1000, true, 200, 10, 5);

    private final int runs;
    private final int clientRuns;
    private final int warmupMillis;
    private final boolean jitSettle;
    private final int roundMillis;
    private final int measuredRounds;
    private final int iperfSeconds;

    Mode(int runs, int clientRuns, int warmupMillis, boolean jitSettle, int roundMillis, int measuredRounds,
            int iperfSeconds) {
        this.runs = runs;
        this.clientRuns = clientRuns;
        this.warmupMillis = warmupMillis;
        this.jitSettle = jitSettle;
        this.roundMillis = roundMillis;
        this.measuredRounds = measuredRounds;
        this.iperfSeconds = iperfSeconds;
    }

    /** {@return runs per cell of the experiments that repeat a whole measurement, each a fresh process} */
    public int runs() {
        return runs;
    }

    /** {@return stream client processes per cell, each measuring {@link #measuredRounds()} rounds} */
    public int clientRuns() {
        return clientRuns;
    }

    /** {@return the least length of a stream client's first round, the warm-up, in milliseconds} */
    public int warmupMillis() {
        return warmupMillis;
    }

    /**
     * {@return whether a Java stream client's warm-up also waits until its JIT has compiled nothing
     * for a round's length} Not in quick mode, whose figures are a first look.
     */
    public boolean jitSettle() {
        return jitSettle;
    }

    /** {@return the length of each measured round of a stream client, in milliseconds} */
    public int roundMillis() {
        return roundMillis;
    }

    /** {@return rounds measured per stream client, after its warm-up round} */
    public int measuredRounds() {
        return measuredRounds;
    }

    /**
     * {@return the options that give a {@code wirespeed client} this mode's rounds}: a warm-up round and
     * {@link #measuredRounds()} more, timed
     */
    public List<String> clientRoundOptions() {
        List<String> options = new ArrayList<>(List.of("--round-ms", String.valueOf(roundMillis), "--warmup-ms",
                String.valueOf(warmupMillis), "--rounds", String.valueOf(measuredRounds + 1)));
        if (!jitSettle) {
            options.add("--no-jit-settle");
        }
        return options;
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
