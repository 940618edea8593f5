package dev.wirespeed.lab.result;

import com.fasterxml.jackson.annotation.JsonValue;

/** A percentile of a latency distribution, as {@code ping --json} names it. */
public enum Percentile {
    /** The median. */
    P50("p50", "p50"),
    /** The 90th percentile. */
    P90("p90", "p90"),
    /** The 99th percentile. */
    P99("p99", "p99"),
    /** The 99.9th percentile. */
    P999("p999", "p99.9"),
    /** The 99.99th percentile. */
    P9999("p9999", "p99.99"),
    /** The largest value. */
    MAX("max", "max");

    private final String key;
    private final String label;

    Percentile(String key, String label) {
        this.key = key;
        this.label = label;
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
     * {@return a table note saying how many round trips lie beyond each tail percentile of a run of
     * {@code count}}: a percentile with few beyond it is decided by those few
     *
     * @param count round trips measured per run
     */
    public static String tailNote(long count) {
        return String.format(java.util.Locale.ROOT, "round trips beyond each percentile per run: p99 %,d, p99.9 %,d, "
                + "p99.99 %,d; a tail with fewer than 10 beyond it is a hint, not a figure", count / 100, count / 1_000,
                count / 10_000);
    }
}
