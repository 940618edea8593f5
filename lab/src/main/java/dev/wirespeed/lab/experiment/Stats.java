package dev.wirespeed.lab.experiment;

import java.util.Arrays;
import java.util.List;

/**
 * The median, min and max of repeated measurements.
 *
 * @param median the middle value (mean of the two middle ones for an even count)
 * @param min the smallest
 * @param max the largest
 * @param count how many values
 */
public record Stats(double median, double min, double max, int count) {
    /**
     * {@return the statistics of {@code values}}
     *
     * @param values at least one value
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
}
