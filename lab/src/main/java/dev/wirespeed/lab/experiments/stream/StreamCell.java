package dev.wirespeed.lab.experiments.stream;

import dev.wirespeed.lab.result.Placement;

/**
 * A case of a stream experiment: one row at one placement.
 *
 * @param placement where writer and reader run
 * @param row who writes and who reads
 */
public record StreamCell(Placement placement, StreamCase row) {
}
