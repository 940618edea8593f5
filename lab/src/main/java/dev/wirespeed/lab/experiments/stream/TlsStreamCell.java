package dev.wirespeed.lab.experiments.stream;

import dev.wirespeed.lab.result.Placement;

/**
 * A case of {@code stream-tls}: one client run of one row at one placement, in one pass over the
 * rows, or (pass 0) every pass of the row merged.
 *
 * @param placement where server and client run
 * @param row who serves, on which engine
 * @param pass the pass from 1, or 0 for the row's passes merged into one
 */
public record TlsStreamCell(Placement placement, TlsStreamCase row, int pass) {
    /**
     * Checks the pass.
     *
     * @throws IllegalArgumentException if {@code pass < 0}
     */
    public TlsStreamCell {
        if (pass < 0) {
            throw new IllegalArgumentException("pass=" + pass + " must be >= 0");
        }
    }

    /** {@return the same row and placement with every pass merged} */
    public TlsStreamCell merged() {
        return pass == 0 ? this : new TlsStreamCell(placement, row, 0);
    }
}
