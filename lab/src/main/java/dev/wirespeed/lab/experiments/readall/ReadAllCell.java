package dev.wirespeed.lab.experiments.readall;

import dev.wirespeed.lab.result.Medium;
import dev.wirespeed.lab.result.Placement;
import dev.wirespeed.lab.result.Stats;
import java.util.Map;

/**
 * What one length measured.
 *
 * @param placement where the lab's thread ran
 * @param bytes each reader's bytes allocated per call: the least of several warmed calls
 * @param callsPerSec each reader's calls per second over the timed blocks
 * @param paired ours / the JDK's calls per second, block by block, per medium
 */
record ReadAllCell(Placement placement, Map<Reader, Long> bytes, Map<Reader, Stats> callsPerSec,
        Map<Medium, Stats> paired) {
}
