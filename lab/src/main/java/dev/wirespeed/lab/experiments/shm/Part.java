package dev.wirespeed.lab.experiments.shm;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What one cell of the {@code shm} experiment measures at its placement, for each {@link Peer} in turn:
 * a ping-pong closed or open loop, a stream to a spinning reader, or the wake-up of a parked reader.
 */
public enum Part {
    /** {@code ring-echo} and {@code ring-ping} (and the C ring's), the next frame sent as the last comes back. */
    CLOSED_LOOP,
    /** The same ping-pong with frame {@code i} due at {@code i / rate} s, its round trip counted from then. */
    OPEN_LOOP,
    /**
     * {@code ring-write --wake none} to {@code ring-read --sleep spin} (and the C ring's): frames a second;
     * beside them {@code server} to {@code client --strategy wirespeed-spin} over a Unix domain socket.
     */
    STREAM,
    /**
     * Several {@code ring-write --layout many-to-one --wake none} processes into the one ring of a {@code ring-read
     * --layout many-to-one --sleep spin} (and the C ring's, layout 2): frames a second in total, each writer's
     * stream checked apart; the library's {@code ManyToOneRing} beside Agrona's {@code ManyToOneRingBuffer} and
     * Aeron's concurrent publications of one IPC stream.
     */
    MANY_STREAM,
    /**
     * {@code ring-write --idle-ms} to {@code ring-read --wakes --sleep futex}: the first frame after each idle
     * period, and the reader's CPU meanwhile; beside it the C ring's same steps ({@code shmring write-idle}
     * to {@code read-wakes}) and the kernel's bare futex wake-up ({@code shmring futex}).
     */
    IDLE;

    /**
     * {@return the peers measured, in table order}: the rings (the library's, Agrona's, Aeron's, the C
     * ring; where many write, their many-to-one kinds), the stream also the Unix socket; for {@link #IDLE}
     * the library's parking reader, the C ring's and the C futex probe only (Agrona's and Aeron's readers
     * have no futex); none of C where there is no C program
     *
     * @param withC whether the C program was built
     */
    public List<Peer> peers(boolean withC) {
        List<Peer> peers = new ArrayList<>(switch (this) {
            case CLOSED_LOOP, OPEN_LOOP -> List.of(Peer.WIRESPEED, Peer.AGRONA, Peer.AERON, Peer.C);
            case STREAM -> List.of(Peer.WIRESPEED, Peer.AGRONA, Peer.AERON, Peer.C, Peer.UNIX);
            case MANY_STREAM -> List.of(Peer.WIRESPEED, Peer.AGRONA, Peer.AERON, Peer.C);
            case IDLE -> List.of(Peer.WIRESPEED, Peer.C, Peer.FUTEX);
        });
        if (!withC) {
            peers.removeAll(List.of(Peer.C, Peer.FUTEX));
        }
        return peers;
    }

    /**
     * {@return the row's name in tables and results}
     *
     * @param peer one of {@link #peers}
     */
    public String row(Peer peer) {
        return switch (this) {
            case CLOSED_LOOP, STREAM -> peer.label();
            case MANY_STREAM -> peer.manyLabel();
            case OPEN_LOOP -> String.format(Locale.ROOT, "%s, open loop at %,d/s", peer.label(),
                    ShmExperiment.OPEN_LOOP_RATE);
            case IDLE -> peer == Peer.FUTEX ? peer.label() : peer.label() + ", futex parking";
        };
    }
}
