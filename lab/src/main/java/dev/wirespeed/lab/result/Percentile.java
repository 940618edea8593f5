package dev.wirespeed.lab.result;

import com.fasterxml.jackson.annotation.JsonValue;

/** A percentile of a latency distribution, as {@code ping --json} names it. */
public enum Percentile {
    /** The median. */
    P50("p50", "p50", 2),
    /** The 90th percentile. */
    P90("p90", "p90", 10),
    /** The 99th percentile. */
    P99("p99", "p99", 100),
    /** The 99.9th percentile. */
    P999("p999", "p99.9", 1_000),
    /** The 99.99th percentile. */
    P9999("p9999", "p99.99", 10_000),
    /** The largest value. */
    MAX("max", "max", 0);

    /**
     * The fewest values of a run beyond a percentile for the run to decide it: with fewer, the
     * percentile is those few values, a hint rather than a figure, and no target is judged on it.
     */
    public static final int DECIDING_BEYOND = 10;

    private final String key;
    private final String label;
    /** One value in this many lies beyond the percentile; 0 for the maximum, beyond which nothing lies. */
    private final long oneIn;

    Percentile(String key, String label, long oneIn) {
        this.key = key;
        this.label = label;
        this.oneIn = oneIn;
    }

    /** {@return the JSON key, e.g. {@code p999}} */
    @JsonValue
    public String key() {
        return key;
    }

    /** {@return how a table heads it, e.g. {@code p99.9}} */
    public String label() {
        return label;
    }

    /**
     * {@return how many of a run's {@code count} values lie beyond this percentile}: none beyond the
     * maximum
     *
     * @param count values measured in the run, {@code >= 0}
     */
    public long beyond(long count) {
        if (count < 0) {
            throw new IllegalArgumentException("count=" + count + " must be >= 0");
        }
        return oneIn == 0 ? 0 : count / oneIn;
    }

    /**
     * {@return whether a run of {@code count} values decides this percentile}: at least
     * {@value #DECIDING_BEYOND} of them lie beyond it; never the maximum, which one value decides
     *
     * @param count values measured in the run, {@code >= 0}
     */
    public boolean decidedBy(long count) {
        return beyond(count) >= DECIDING_BEYOND;
    }

    /**
     * {@return the fewest values a run needs to decide this percentile}
     *
     * @throws IllegalStateException for the maximum, which no count decides
     */
    public long decidingCount() {
        if (oneIn == 0) {
            throw new IllegalStateException(label + " is one value: no count of values decides it");
        }
        return DECIDING_BEYOND * oneIn;
    }

    /**
     * {@return a note that a target on this percentile is not judged on runs of {@code count}}, naming
     * the count, how many lie beyond and the count that would decide it
     *
     * @param count values measured per run, too few to decide this percentile
     */
    public String undecidedNote(long count) {
        return String.format(java.util.Locale.ROOT, "%s targets are not judged: a run of %,d round trips leaves %,d "
                + "beyond %s, fewer than %d; runs of at least %,d decide it", label, count, beyond(count), label,
                DECIDING_BEYOND, decidingCount());
    }

    /**
     * {@return a table note saying how many round trips lie beyond each tail percentile of a run of
     * {@code count}}: a percentile with few beyond it is decided by those few
     *
     * @param count round trips measured per run
     */
    public static String tailNote(long count) {
        return String.format(java.util.Locale.ROOT, "round trips beyond each percentile per run: p99 %,d, p99.9 %,d, "
                + "p99.99 %,d; a tail with fewer than %d beyond it is a hint, not a figure, and no target is judged on it",
                P99.beyond(count), P999.beyond(count), P9999.beyond(count), DECIDING_BEYOND);
    }
}
