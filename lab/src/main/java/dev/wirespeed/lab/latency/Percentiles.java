package dev.wirespeed.lab.latency;

import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * The percentiles {@code ping} reports, in microseconds.
 *
 * @param p50 median
 * @param p90 90th percentile
 * @param p99 99th percentile
 * @param p999 99.9th percentile
 * @param max the largest round trip
 */
public record Percentiles(double p50, double p90, double p99, double p999, double max) {
    /** {@return the percentiles of a histogram of nanoseconds, in microseconds} */
    static Percentiles of(Histogram nanos) {
        return new Percentiles(us(nanos.getValueAtPercentile(50)), us(nanos.getValueAtPercentile(90)),
                us(nanos.getValueAtPercentile(99)), us(nanos.getValueAtPercentile(99.9)), us(nanos.getMaxValue()));
    }

    private static double us(long nanos) {
        return nanos / 1000.0;
    }

    /** {@return the JSON line of {@code ping --json}} */
    public String json() {
        return String.format(Locale.ROOT, "{\"p50\":%.3f,\"p90\":%.3f,\"p99\":%.3f,\"p999\":%.3f,\"max\":%.3f,\"unit\":\"us\"}",
                p50, p90, p99, p999, max);
    }

    /** {@return one line for people} */
    public String text() {
        return String.format(Locale.ROOT, "p50 %.1f us, p90 %.1f us, p99 %.1f us, p99.9 %.1f us, max %.1f us",
                p50, p90, p99, p999, max);
    }
}
