package dev.wirespeed.lab.experiments.stream;

import dev.wirespeed.lab.result.Stats;

/**
 * What a stream cell measured over its runs.
 *
 * @param mbPerSec megabytes per second
 * @param msgPerSec frames per second, or null where the case counts no frames ({@code iperf3})
 * @param cpuNsPerMsg the reading thread's CPU time per frame, or null where it is not measured
 */
public record Throughput(Stats mbPerSec, Stats msgPerSec, Stats cpuNsPerMsg) {
}
