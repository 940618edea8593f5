package dev.wirespeed.lab.shm;

import dev.wirespeed.lab.CliName;
import java.io.IOException;
import java.nio.file.Path;

/** A peer that moves frames through shared memory between two processes: the {@code --impl} of the {@code ring-*} commands. */
public enum ShmImpl implements CliName {
    /**
     * The library's {@code dev.wirespeed.shm.SharedRing}, a file per direction; {@code ManyToOneRing} where many
     * write.
     */
    WIRESPEED(Sleep.FUTEX),
    /**
     * Agrona's {@code OneToOneRingBuffer} over a file mapped by both, a file per direction; {@code
     * ManyToOneRingBuffer} where many write.
     */
    AGRONA(Sleep.BACKOFF),
    /** Aeron's IPC channel, a stream per direction, through a media driver the owner embeds. */
    AERON(Sleep.BACKOFF);

    private final Sleep parking;

    ShmImpl(Sleep parking) {
        this.parking = parking;
    }

    /** {@return how this peer's reader sleeps when nothing comes: the futex, or Agrona's backoff} */
    public Sleep parking() {
        return parking;
    }

    /**
     * {@return this process's side of a link at {@code base}}
     *
     * @param base the path the link's files are named after ({@code /dev/shm/wirespeed.ring}: that file,
     *     or {@code .ping} and {@code .pong} beside it; Aeron's driver directory {@code -aeron})
     * @param owner whether this side makes what both map (the files, or Aeron's media driver)
     * @param capacity bytes of each ring (a power of two from 4096); Aeron's streams take the driver's default
     * @param sleep how its readers wait: {@link Sleep#SPIN} for every peer, the others for the peers they name
     * @throws IllegalArgumentException if this peer has no such sleep, naming the ones it has
     * @throws IOException if the link cannot be made or mapped
     */
    public ShmLink open(Path base, boolean owner, int capacity, Sleep sleep) throws IOException {
        return open(base, owner, capacity, sleep, Layout.ONE_TO_ONE);
    }

    /**
     * {@return this process's side of a link at {@code base} of {@code layout}}: as {@link #open(Path, boolean,
     * int, Sleep)}; where many write, the reader's side owns the link, and a writer's {@link Outbound#close}
     * ends nothing
     *
     * @param base the path the link's files are named after
     * @param owner whether this side makes what every side maps: the writer's of a one-to-one link, the
     *     reader's of a many-to-one link
     * @param capacity bytes of each ring, for the owner (a power of two from 4096)
     * @param sleep how its readers wait
     * @param layout how many write into each direction
     * @throws IllegalArgumentException if this peer has no such sleep, naming the ones it has
     * @throws IOException if the link cannot be made or mapped
     */
    public ShmLink open(Path base, boolean owner, int capacity, Sleep sleep, Layout layout) throws IOException {
        return switch (this) {
            case WIRESPEED -> layout == Layout.ONE_TO_ONE ? new WirespeedLink(base, owner, capacity, sleep)
                    : new WirespeedManyLink(base, owner, capacity, sleep);
            case AGRONA -> new AgronaLink(base, owner, capacity, sleep, layout);
            case AERON -> {
                try {
                    yield new AeronLink(base, owner, sleep, layout);
                } catch (RuntimeException e) {
                    if (e instanceof IllegalArgumentException) {
                        throw e;
                    }
                    throw new IOException("aeron at " + AeronLink.directory(base) + ": " + e, e);
                }
            }
        };
    }

    @Override
    public String toString() {
        return cliName();
    }
}
