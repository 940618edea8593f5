package dev.wirespeed.lab.experiments.shm;

import dev.wirespeed.lab.result.Medium;
import dev.wirespeed.lab.result.Role;
import dev.wirespeed.lab.shm.ShmImpl;

/**
 * Who moves the frames of a row of the {@code shm} experiment: one of the lab's shared-memory peers, the C
 * ring, (in the stream only) the library's busy-polling reader on a Unix domain socket, the kernel's
 * path between two processes of one machine that the rings are to beat, or (in the idle part only) the
 * kernel's bare futex wake-up.
 */
public enum Peer {
    /**
     * The library's {@code SharedRing} ({@code ManyToOneRing} where many write): {@code ring-*} commands with
     * {@code --impl wirespeed}.
     */
    WIRESPEED(ShmImpl.WIRESPEED, "wirespeed SharedRing", "wirespeed ManyToOneRing", Role.LIBRARY),
    /**
     * Agrona's {@code OneToOneRingBuffer} ({@code ManyToOneRingBuffer} where many write) over a mapped file:
     * {@code --impl agrona}.
     */
    AGRONA(ShmImpl.AGRONA, "Agrona OneToOneRingBuffer", "Agrona ManyToOneRingBuffer", Role.PEER),
    /**
     * Aeron's IPC channel with a media driver embedded in the owner's process (an exclusive publication, or where
     * many write a concurrent one each, one log): {@code --impl aeron}.
     */
    AERON(ShmImpl.AERON, "Aeron IPC", "Aeron IPC, concurrent publications", Role.PEER),
    /** {@code shmring.c}: the shared ring's layout in C (layout 2 where many write), the ceiling. */
    C(null, "C ring, same layout", "C ring, same layout 2", Role.CEILING),
    /**
     * {@code shmring futex}: the kernel's futex wake-up between two C processes, no ring, no spin, no frame;
     * the idle part's floor.
     */
    FUTEX(null, "kernel futex wake-up (C, no ring)", null, Role.CEILING),
    /** {@code client --strategy wirespeed-spin} reading {@code server} over a Unix domain socket. */
    UNIX(null, "Unix socket, wirespeed-spin", null, Role.LIBRARY);

    private final ShmImpl impl;
    private final String label;
    private final String manyLabel;
    private final Role role;

    Peer(ShmImpl impl, String label, String manyLabel, Role role) {
        this.impl = impl;
        this.label = label;
        this.manyLabel = manyLabel;
        this.role = role;
    }

    /** {@return the {@code --impl} of the {@code ring-*} commands, or null for the C programs and the socket} */
    public ShmImpl impl() {
        return impl;
    }

    /** {@return how tables name it} */
    public String label() {
        return label;
    }

    /**
     * {@return how tables name its many-to-one kind}
     *
     * @throws IllegalStateException for a peer that has none (the futex probe, the socket)
     */
    public String manyLabel() {
        if (manyLabel == null) {
            throw new IllegalStateException(this + " has no many-writer kind");
        }
        return manyLabel;
    }

    /** {@return whose code it is} */
    public Role role() {
        return role;
    }

    /** {@return what the frames cross} */
    public Medium medium() {
        return this == UNIX ? Medium.UNIX : Medium.SHM;
    }
}
