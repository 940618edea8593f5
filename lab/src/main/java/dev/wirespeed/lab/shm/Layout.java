package dev.wirespeed.lab.shm;

import dev.wirespeed.lab.CliName;

/**
 * How many write into one direction of a {@link ShmLink}: the {@code --layout} of {@code ring-write} and {@code
 * ring-read}.
 */
public enum Layout implements CliName {
    /**
     * One writer, one reader: the library's {@code SharedRing} (layout 1), Agrona's {@code OneToOneRingBuffer},
     * Aeron's exclusive publication. The writer's side owns the link; its close ends the reader's stream.
     */
    ONE_TO_ONE,
    /**
     * Many writers, one reader: the library's {@code ManyToOneRing} (layout 2), Agrona's {@code
     * ManyToOneRingBuffer}, Aeron's concurrent publication, one log that every writer's publication shares.
     * The reader's side owns the link (it is there first and stays); a writer's close ends nothing: the
     * reader is never told that no writer will come, and {@link Inbound#await} never returns -1.
     */
    MANY_TO_ONE;

    @Override
    public String toString() {
        return cliName();
    }
}
