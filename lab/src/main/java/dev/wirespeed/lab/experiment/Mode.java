package dev.wirespeed.lab.experiment;

import dev.wirespeed.lab.cli.Args;
import dev.wirespeed.lab.cli.ClientCommand;
import dev.wirespeed.lab.cli.EchoCommand;
import dev.wirespeed.lab.cli.PingCommand;
import java.util.Locale;

/** How long a lab run measures. */
public enum Mode {
    /** One short run per cell, the warm-up not waiting for the JIT: a first look and a smoke test, not figures to quote. */
    QUICK(1, 1, 1, 50, false, 25, 2, 1, new PingWarmup(0, 0, 0)),
    /**
     * Three runs per latency cell; one stream client per cell, three passes of the paired ones, each four
     * rounds of 100 ms after its warm-up.
     */
    DEFAULT(3, 1, 3, 200, true, 100, 4, 1, new PingWarmup(200, 100, 20_000)),
    /** Five runs per latency cell; three stream clients per cell, each ten rounds of 200 ms after a longer warm-up. */
    FULL(5, 3, 3, 1000, true, 200, 10, 5, new PingWarmup(500, 200, 50_000));

    private final int runs;
    private final int clientRuns;
    private final int pairedPasses;
    private final int warmupMillis;
    private final boolean jitSettle;
    private final int roundMillis;
    private final int measuredRounds;
    private final int iperfSeconds;
    private final PingWarmup pingWarmup;

    Mode(int runs, int clientRuns, int pairedPasses, int warmupMillis, boolean jitSettle, int roundMillis,
            int measuredRounds, int iperfSeconds, PingWarmup pingWarmup) {
        this.runs = runs;
        this.clientRuns = clientRuns;
        this.pairedPasses = pairedPasses;
        this.warmupMillis = warmupMillis;
        this.jitSettle = jitSettle;
        this.roundMillis = roundMillis;
        this.measuredRounds = measuredRounds;
        this.iperfSeconds = iperfSeconds;
        this.pingWarmup = pingWarmup;
    }

    /** {@return runs per cell of the experiments that repeat a whole measurement, each a fresh process} */
    public int runs() {
        return runs;
    }

    /** {@return stream client processes per cell, each measuring {@link #measuredRounds()} rounds} */
    public int clientRuns() {
        return clientRuns;
    }

    /**
     * {@return passes of the stream experiments' paired rows}, the readers fed by the C writer and the C
     * readers, each pass one client run of every one of them in turn, so that a ratio between them is
     * taken within a pass and judged on the median of the passes
     */
    public int pairedPasses() {
        return pairedPasses;
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
     * {@return a {@code wirespeed client} line in this mode's rounds}: a warm-up round and
     * {@link #measuredRounds()} more, timed
     *
     * @param client the line
     */
    public Args inRounds(Args client) {
        return inRounds(client, roundMillis);
    }

    /**
     * {@return a line in the rounds of {@link #inRounds(Args)}, but of another length}
     *
     * @param client the line
     * @param roundMillis each round's length, in milliseconds
     */
    public Args inRounds(Args client, int roundMillis) {
        return client.with(ClientCommand.ROUND_MS, (long) roundMillis).with(ClientCommand.WARMUP_MS, (long) warmupMillis)
                .with(ClientCommand.ROUNDS, measuredRounds + 1L).with(ClientCommand.JIT_SETTLE, jitSettle);
    }

    /**
     * How a Java ping-pong warms up beyond its count of round trips: the ping for at least
     * {@code millis} and then until its JIT has compiled nothing for {@code settleMillis}; the echo, before
     * it listens, with {@code primeRoundTrips} round trips on each of its priming connections (see
     * {@code wirespeed echo --prime}). Zeros: none of it, as quick mode's first look.
     *
     * @param millis the ping's least warm-up time, {@code >= 0}
     * @param settleMillis how long the ping's JIT must stay idle before measuring, {@code >= 0}
     * @param primeRoundTrips round trips per priming connection of the echo, {@code >= 0}
     */
    public record PingWarmup(int millis, int settleMillis, long primeRoundTrips) {
        /**
         * {@return a {@code wirespeed ping} line with this warm-up}
         *
         * @param ping the line
         */
        public Args onPing(Args ping) {
            return ping.with(PingCommand.WARMUP_MS, (long) millis).with(PingCommand.SETTLE_MS, (long) settleMillis);
        }

        /**
         * {@return a {@code wirespeed echo} line with this priming}
         *
         * @param echo the line
         */
        public Args onEcho(Args echo) {
            return echo.with(EchoCommand.PRIME, primeRoundTrips);
        }

        /** {@return the warm-up in words, for a table's title} */
        public String describe() {
            if (millis == 0 && settleMillis == 0 && primeRoundTrips == 0) {
                return "no timed warm-up, echoes not primed";
            }
            return String.format(Locale.ROOT, "ping warm-up at least %d ms, then until its JIT is idle for %d ms; "
                    + "each echo primed with %,d round trips per priming connection", millis, settleMillis,
                    primeRoundTrips);
        }
    }

    /** {@return how a Java ping-pong warms up, beyond its count of warm-up round trips} */
    public PingWarmup pingWarmup() {
        return pingWarmup;
    }

    /**
     * {@return whether the io_uring rows of the stream and latency experiments run}: in full runs only,
     * which keeps the default run within its time
     */
    public boolean ioUringRows() {
        return this == FULL;
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
