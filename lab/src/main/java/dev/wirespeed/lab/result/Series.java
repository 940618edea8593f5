package dev.wirespeed.lab.result;

import java.util.Objects;

/**
 * One case of an experiment as results name it: every {@link Measurement} of the case carries it.
 *
 * @param experiment the experiment's name ({@code tcp}, {@code readall}, ...)
 * @param name the case as tables show it ({@code zero-copy}, {@code C read(2) busy-poll}, ...)
 * @param role whose code the case runs
 * @param medium what the bytes travel through
 * @param size the body size (streams, latency) or the input's length (files, readall), in bytes
 */
public record Series(String experiment, String name, Role role, Medium medium, long size) {
    /**
     * Checks the fields.
     *
     * @throws NullPointerException if a field is null
     * @throws IllegalArgumentException if {@code size < 0}
     */
    public Series {
        Objects.requireNonNull(experiment, "experiment");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(medium, "medium");
        if (size < 0) {
            throw new IllegalArgumentException("size=" + size + " < 0 for " + experiment + " " + name);
        }
    }

    /**
     * {@return a measurement of this case}
     *
     * @param placement where it ran
     * @param unit the unit of {@code stats}
     * @param stats the figures over the runs
     */
    public Measurement at(Placement placement, Unit unit, Stats stats) {
        return new Measurement(this, placement, unit, null, stats, null, null);
    }
}
