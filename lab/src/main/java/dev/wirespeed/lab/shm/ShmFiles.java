package dev.wirespeed.lab.shm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.locks.LockSupport;

/** The file of one direction of a link, and the wait for the owner to make it. */
final class ShmFiles {
    /** How long the side that does not own a link waits for the owner to make its files. */
    static final long WAIT_MILLIS = 10_000;

    private ShmFiles() {
    }

    /** {@return the file of the direction {@code name}: {@code base} itself for the empty name, else {@code base.name}} */
    static Path of(Path base, String name) {
        return name.isEmpty() ? base : base.resolveSibling(base.getFileName() + "." + name);
    }

    /**
     * {@return {@code file}} once it exists, looking every millisecond for {@value #WAIT_MILLIS} ms
     *
     * @throws NoSuchFileException if it is not there by then, naming it and the wait
     */
    static Path await(Path file) throws IOException {
        long deadline = System.nanoTime() + WAIT_MILLIS * 1_000_000;
        while (!Files.exists(file)) {
            if (System.nanoTime() - deadline > 0) {
                throw new NoSuchFileException(file.toString(), null, "not made within " + WAIT_MILLIS
                        + " ms: is the other end (the one that makes it) running?");
            }
            LockSupport.parkNanos(1_000_000);
        }
        return file;
    }
}
