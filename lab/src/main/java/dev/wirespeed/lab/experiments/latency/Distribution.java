package dev.wirespeed.lab.experiments.latency;

import dev.wirespeed.lab.result.ChildReport;
import dev.wirespeed.lab.result.Percentile;
import dev.wirespeed.lab.result.SetAside;
import dev.wirespeed.lab.result.Stats;
import dev.wirespeed.lab.result.Unit;
import java.util.Map;

/**
 * A latency cell over its runs: each percentile's median, min and max over the runs.
 *
 * @param byPercentile every percentile of {@link Percentile}
 */
public record Distribution(Map<Percentile, Stats> byPercentile) {
    /**
     * Checks that every percentile is there and copies the map.
     *
     * @throws IllegalArgumentException if one is missing
     */
    public Distribution {
        byPercentile = Map.copyOf(byPercentile);
        if (byPercentile.size() != Percentile.values().length) {
            throw new IllegalArgumentException("percentiles " + byPercentile.keySet() + ", expected all of "
                    + java.util.List.of(Percentile.values()));
        }
    }

    /**
     * {@return the runs as one distribution: each percentile's median, min and max over them}
     *
     * @param runs one ping's percentiles a run, at least one
     */
    public static Distribution of(java.util.List<ChildReport.Latency> runs) {
        Map<Percentile, Stats> stats = new java.util.EnumMap<>(Percentile.class);
        for (Percentile p : Percentile.values()) {
            stats.put(p, Stats.of(runs.stream().map(run -> run.get(p)).toList()));
        }
        return new Distribution(stats);
    }

    /**
     * {@return one percentile's figures}
     *
     * @param percentile which
     */
    public Stats get(Percentile percentile) {
        return byPercentile.get(percentile);
    }

    /**
     * {@return why the lab does not judge on {@code percentile} of this cell, or null where it does}: its
     * runs spread wider than their median (max - min over the median above 1), as when one run's p50 is a
     * thousand times another's: the machine, not the path measured, made the figure
     *
     * @param percentile the percentile a finding reads
     */
    public SetAside.Reason setAside(Percentile percentile) {
        return SetAside.Reason.spread(get(percentile), Unit.MICROSECONDS);
    }
}
