package dev.wirespeed.lab.experiments.idle;

import dev.wirespeed.lab.result.Percentile;
import dev.wirespeed.lab.result.Stats;
import java.util.Map;

/**
 * What one cell measured: the stream's throughput and the reader's CPU per message over the measured
 * rounds, and each round-trip percentile over the ping runs.
 *
 * @param mbPerSec the stream, MB/s
 * @param cpuNsPerMsg the stream reader's CPU time per message
 * @param latency every percentile of {@link Percentile}, microseconds
 */
public record IdleResult(Stats mbPerSec, Stats cpuNsPerMsg, Map<Percentile, Stats> latency) {
    /**
     * Checks that every percentile is there and copies the map.
     *
     * @throws IllegalArgumentException if one is missing
     */
    public IdleResult {
        latency = Map.copyOf(latency);
        if (latency.size() != Percentile.values().length) {
            throw new IllegalArgumentException("percentiles " + latency.keySet() + ", expected all of "
                    + java.util.List.of(Percentile.values()));
        }
    }
}
