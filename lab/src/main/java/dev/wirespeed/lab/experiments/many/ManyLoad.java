package dev.wirespeed.lab.experiments.many;

import dev.wirespeed.lab.LoopImpl;

/**
 * A load generator of the many-connections experiment: the lab's C generator ({@code many load}), or
 * the same load from the library's client loop ({@code wirespeed load}), each driving the same C echo.
 */
public enum ManyLoad {
    /** {@code many load}: one thread, epoll, the ceiling. */
    C("C load generator (many.c)", null),
    /** {@code wirespeed load --impl jdk}: a {@code FrameClient} on one loop over the JDK's {@code Selector}. */
    LOOP("wirespeed FrameClient, 1 loop", LoopImpl.JDK),
    /** {@code wirespeed load --impl native}: the same over {@code epoll} through FFM. */
    LOOP_EPOLL("wirespeed FrameClient over epoll, 1 loop", LoopImpl.NATIVE),
    /** {@code wirespeed load --impl uring}: the same over io_uring through FFM. */
    LOOP_URING("wirespeed FrameClient over io_uring, 1 loop", LoopImpl.URING);

    private final String label;
    private final LoopImpl impl;

    ManyLoad(String label, LoopImpl impl) {
        this.label = label;
        this.impl = impl;
    }

    /** {@return the row's name in tables and results} */
    public String label() {
        return label;
    }

    /** {@return null where this machine can run the generator, else why not} */
    public String unavailable() {
        return impl == null ? null : impl.unavailable();
    }

    /** {@return the transport of {@code wirespeed load}'s loop, or null for the C generator} */
    LoopImpl impl() {
        return impl;
    }
}
