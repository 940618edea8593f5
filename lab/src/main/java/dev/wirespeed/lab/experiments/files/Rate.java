package dev.wirespeed.lab.experiments.files;

import dev.wirespeed.lab.result.Placement;
import dev.wirespeed.lab.result.Stats;

/**
 * What counting one file measured.
 *
 * @param placement where the lab's thread ran
 * @param size the file's bytes
 * @param mbPerSec megabytes counted per second over the timed runs
 */
record Rate(Placement placement, long size, Stats mbPerSec) {
}
