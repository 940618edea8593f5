package dev.wirespeed.lab.experiments.latency;

import dev.wirespeed.lab.result.Placement;

/**
 * A case of the latency experiment: one row at one placement.
 *
 * @param placement where echo (the server side) and ping run
 * @param row how they talk
 */
public record LatencyCell(Placement placement, LatencyCase row) {
}
