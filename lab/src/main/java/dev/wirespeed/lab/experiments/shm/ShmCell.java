package dev.wirespeed.lab.experiments.shm;

import dev.wirespeed.lab.result.Placement;

/**
 * A case of the {@code shm} experiment: one part at one placement, every peer of it measured in turn, run
 * after run, so that ratios between peers are of figures measured seconds apart, not minutes.
 *
 * @param placement where the owning end (echo, writer) and the other (ping, reader) run
 * @param part what is measured
 */
public record ShmCell(Placement placement, Part part) {
}
