package dev.wirespeed.lab.result;

import com.fasterxml.jackson.annotation.JsonValue;

/** A percentile of a latency distribution, as {@code ping --json} names it. */
public enum Percentile {
    /** The median. */
    P50("p50", "p50", 50),
    /** The 90th percentile. */
    P90("p90", "p90", 90),
    /** The 99th percentile. */
    P99("p99", "p99", 99),
    /** The 99.9th percentile. */
    P999("p999", "p99.9", 99.9),
    /** The largest value. */
    MAX("max", "max", 100);

    private final String key;
    private final String label;
    private final double percent;

    Percentile(String key, String label, double percent) {
        this.key = key;
        this.label = label;
        this.percent = percent;
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

    /** {@return the percentile in percent, 100 for the maximum} */
    public double percent() {
        return percent;
    }
}
