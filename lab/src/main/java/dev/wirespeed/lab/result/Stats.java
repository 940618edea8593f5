package dev.wirespeed.lab.result;

import java.util.Arrays;
import java.util.List;

/**
 * The median, min and max of repeated measurements: {@code min <= median <= max}, {@code runs >= 1}.
 *
 * @param median the middle value (the mean of the two middle ones for an even count)
 * @param min the smallest
 * @param max the largest
 * @param runs how many values
 */
public record Stats(double median, double min, double max, int runs) {
    /**
     * Checks the invariant.
     *
     * @throws IllegalArgumentException if {@code runs < 1}, a figure is NaN, or {@code min <= median <= max} fails
     */
    public Stats {
        if (runs < 1 || !(min <= median && median <= max)) {
            throw new IllegalArgumentException("stats need runs >= 1 and min <= median <= max: median=" + median
                    + " min=" + min + " max=" + max + " runs=" + runs);
        }
    }

    /**
     * {@return the statistics of {@code values}}
     *
     * @param values at least one value, none NaN
     * @throws IllegalArgumentException if there are none, or one is NaN
     */
    public static Stats of(List<Double> values) {
        if (values.isEmpty()) {
            throw new IllegalArgumentException("no values");
        }
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(sorted);
        int n = sorted.length;
        double median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
        return new Stats(median, sorted[0], sorted[n - 1], n);
    }

    /**
     * {@return one exact figure: a count, not a measurement that varies}
     *
     * @param value the figure
     */
    public static Stats exact(double value) {
        return new Stats(value, value, value, 1);
    }
}
