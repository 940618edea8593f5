package dev.wirespeed.lab.result;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Objects;

/**
 * One measured cell of a lab table, as {@code results.json} and {@code results.csv} hold it.
 *
 * @param series the case
 * @param placement where it ran
 * @param unit the unit of {@code stats}
 * @param percentile which percentile of a latency distribution, or null for every other figure
 * @param stats the median, min and max over the runs
 * @param published the article's figure for this very case and placement in {@code unit}, or null where
 *     the article measured no such case
 * @param ofCeiling the median as a share of the ceiling measured in the same run and placement (0.5 is
 *     half), or null where the experiment has no ceiling for it
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Measurement(Series series, Placement placement, Unit unit, Percentile percentile, Stats stats,
        Double published, Double ofCeiling) {
    /**
     * Checks the fields.
     *
     * @throws NullPointerException if a field other than the three optional ones is null
     * @throws IllegalArgumentException if a percentile is given for a unit other than microseconds
     */
    public Measurement {
        Objects.requireNonNull(series, "series");
        Objects.requireNonNull(placement, "placement");
        Objects.requireNonNull(unit, "unit");
        Objects.requireNonNull(stats, "stats");
        if (percentile != null && unit != Unit.MICROSECONDS) {
            throw new IllegalArgumentException("percentile=" + percentile + " with unit=" + unit + " for " + series.name());
        }
    }

    /**
     * {@return this measurement with the article's figure beside it}
     *
     * @param figure the published figure in this measurement's unit, or NaN for none
     */
    public Measurement published(double figure) {
        return new Measurement(series, placement, unit, percentile, stats, Double.isNaN(figure) ? null : figure,
                ofCeiling);
    }

    /**
     * {@return this measurement as a percentile of a distribution}
     *
     * @param which the percentile
     */
    public Measurement percentile(Percentile which) {
        return new Measurement(series, placement, unit, which, stats, published, ofCeiling);
    }

    /**
     * {@return this measurement with its share of the ceiling}
     *
     * @param ceiling the ceiling's median in this unit, or NaN where there is none
     */
    public Measurement ofCeiling(double ceiling) {
        return new Measurement(series, placement, unit, percentile, stats, published,
                Double.isNaN(ceiling) ? null : stats.median() / ceiling);
    }
}
