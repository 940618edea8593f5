package dev.wirespeed.lab.experiments.stream;

import dev.wirespeed.lab.result.Placement;

/**
 * A case of a stream experiment: one row at one placement, all its client runs at once or, for a row
 * of the paired group, one pass of it.
 *
 * <p>The rows fed by the C writer and the C readers are compared pass by pass: pass {@code k} runs each
 * of them once, one after another, so that the machine's drift between passes falls on both sides of
 * a ratio alike (see {@link StreamExperiment#paired}).
 *
 * @param placement where writer and reader run
 * @param row who writes and who reads
 * @param pass the pass from 1, or 0 for a row whose runs are not paired, and for a paired row's passes
 *     merged into one
 */
public record StreamCell(Placement placement, StreamCase row, int pass) {
    /**
     * Checks the pass.
     *
     * @throws IllegalArgumentException if {@code pass < 0}
     */
    public StreamCell {
        if (pass < 0) {
            throw new IllegalArgumentException("pass=" + pass + " must be >= 0");
        }
    }

    /**
     * A row's cell with its runs together, or its passes merged.
     *
     * @param placement where writer and reader run
     * @param row who writes and who reads
     */
    public StreamCell(Placement placement, StreamCase row) {
        this(placement, row, 0);
    }

    /** {@return the same row and placement with every pass merged} */
    public StreamCell merged() {
        return pass == 0 ? this : new StreamCell(placement, row);
    }
}
