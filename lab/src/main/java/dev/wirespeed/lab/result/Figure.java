package dev.wirespeed.lab.result;

import java.util.Locale;
import java.util.Objects;

/**
 * A named figure a verdict is computed from: a case's median with its spread.
 *
 * @param name what was measured, e.g. {@code wirespeed} or {@code C read(2) busy-poll}
 * @param stats the median, min and max over the runs
 * @param unit the unit
 */
public record Figure(String name, Stats stats, Unit unit) {
    /**
     * Checks the fields.
     *
     * @throws NullPointerException if one is null
     */
    public Figure {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(stats, "stats");
        Objects.requireNonNull(unit, "unit");
    }

    /** {@return the figure as text, e.g. {@code wirespeed 2,573.0 MB/s [2,518.0-3,012.0]}} */
    @Override
    public String toString() {
        String space = unit == Unit.RATIO ? "" : " ";
        String figure = name + " " + format(stats.median()) + space + unit;
        return stats.runs() == 1 || stats.min() == stats.max() ? figure
                : figure + " [" + format(stats.min()) + "-" + format(stats.max()) + "]";
    }

    private static String format(double value) {
        return Math.abs(value) >= 100 ? String.format(Locale.ROOT, "%,.1f", value)
                : String.format(Locale.ROOT, "%.2f", value);
    }
}
