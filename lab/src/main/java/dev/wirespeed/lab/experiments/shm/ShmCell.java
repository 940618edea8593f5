package dev.wirespeed.lab.experiments.shm;

import dev.wirespeed.lab.result.Placement;

/**
 * A case of the {@code shm} experiment: one part at one placement (and, for the many-writer stream, one count
 * of writers), every peer of it measured in turn, run after run, so that ratios between peers are of figures
 * measured seconds apart, not minutes.
 *
 * @param placement where the owning end (echo, writer; every writer of the many-writer stream) and the other
 *     (ping, reader) run
 * @param part what is measured
 * @param writers the writers' processes: 1, or for {@link Part#MANY_STREAM} at least 2
 */
public record ShmCell(Placement placement, Part part, int writers) {
    /** Checks that the writers fit the part. */
    public ShmCell {
        if (part == Part.MANY_STREAM ? writers < 2 : writers != 1) {
            throw new IllegalArgumentException("writers=" + writers + " for part=" + part + ": at least 2 for "
                    + Part.MANY_STREAM + ", else 1");
        }
    }

    /**
     * A cell of a part with one writer.
     *
     * @param placement where the ends run
     * @param part what is measured, not {@link Part#MANY_STREAM}
     */
    public ShmCell(Placement placement, Part part) {
        this(placement, part, 1);
    }

    /**
     * {@return the row's name in tables and results}: the part's, with the writers where many write
     *
     * @param peer one of the part's peers
     */
    public String row(Peer peer) {
        return part == Part.MANY_STREAM ? part.row(peer) + ", " + writers + " writers" : part.row(peer);
    }
}
