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
    /** The library's {@code SharedRing}: {@code ring-*} commands with {@code --impl wirespeed}. */
    WIRESPEED(ShmImpl.WIRESPEED, "wirespeed SharedRing", Role.LIBRARY),
    /** Agrona's {@code OneToOneRingBuffer} over a mapped file: {@code --impl agrona}. */
    AGRONA(ShmImpl.AGRONA, "Agrona OneToOneRingBuffer", Role.PEER),
    /** Aeron's IPC channel with a media driver embedded in the owner's process: {@code --impl aeron}. */
    AERON(ShmImpl.AERON, "Aeron IPC", Role.PEER),
    /** {@code shmring.c}: the shared ring's layout in C, the ceiling. */
    C(null, "C ring, same layout", Role.CEILING),
    /**
     * {@code shmring futex}: the kernel's futex wake-up between two C processes, no ring, no spin, no frame;
     * the idle part's floor.
     */
    FUTEX(null, "kernel futex wake-up (C, no ring)", Role.CEILING),
    /** {@code client --strategy wirespeed-spin} reading {@code server} over a Unix domain socket. */
    UNIX(null, "Unix socket, wirespeed-spin", Role.LIBRARY);

    private final ShmImpl impl;
    private final String label;
    private final Role role;

    Peer(ShmImpl impl, String label, Role role) {
        this.impl = impl;
        this.label = label;
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

    /** {@return whose code it is} */
    public Role role() {
        return role;
    }

    /** {@return what the frames cross} */
    public Medium medium() {
        return this == UNIX ? Medium.UNIX : Medium.SHM;
    }
}
