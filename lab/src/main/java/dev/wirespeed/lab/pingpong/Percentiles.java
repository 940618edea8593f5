package dev.wirespeed.lab.pingpong;

import dev.wirespeed.lab.result.ChildReport;
import dev.wirespeed.lab.result.Unit;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/** The percentiles {@code ping} reports, in microseconds, from its histogram of nanoseconds. */
public final class Percentiles {
    private Percentiles() {
    }

    /**
     * {@return the report of a histogram of nanoseconds, in microseconds}
     *
     * @param nanos the round trips
     */
    public static ChildReport.Latency of(Histogram nanos) {
        return new ChildReport.Latency(us(nanos.getValueAtPercentile(50)), us(nanos.getValueAtPercentile(90)),
                us(nanos.getValueAtPercentile(99)), us(nanos.getValueAtPercentile(99.9)),
                us(nanos.getValueAtPercentile(99.99)), us(nanos.getMaxValue()), Unit.MICROSECONDS);
    }

    private static double us(long nanos) {
        return nanos / 1000.0;
    }

    /**
     * {@return one line for people}
     *
     * @param latency the report
     */
    public static String text(ChildReport.Latency latency) {
        return String.format(Locale.ROOT, "p50 %.1f us, p90 %.1f us, p99 %.1f us, p99.9 %.1f us, p99.99 %.1f us, "
                + "max %.1f us", latency.p50(), latency.p90(), latency.p99(), latency.p999(), latency.p9999(), latency.max());
    }
}
