package dev.wirespeed.linux;

import dev.wirespeed.linux.internal.sys.Flags;
import dev.wirespeed.linux.internal.sys.LibC;
import dev.wirespeed.linux.internal.sys.Sys;

/**
 * The capacity of a Linux pipe, through {@code fcntl(F_GETPIPE_SZ / F_SETPIPE_SZ)}, which the JDK does
 * not expose. A pipe holds 64 KiB by default; a writer that fills it sleeps until the reader drains
 * it, so a larger pipe means fewer wake-ups per byte (the lab's pipe table measures how many fewer).
 *
 * <p>Either end of a pipe may resize it; the kernel rounds up to a power-of-two number of pages and
 * an unprivileged process may not exceed {@code /proc/sys/fs/pipe-max-size} (1 MiB by default).
 * Standard input and output are descriptors 0 and 1.
 *
 * <p>Thread safety: stateless; the pipe is shared by every process that holds it.
 */
public final class Pipes {
    private Pipes() {
    }

    /**
     * {@return the capacity of the pipe behind file descriptor {@code fd}, in bytes}
     *
     * @param fd the descriptor, e.g. 0 for standard input
     * @throws NativeIoException if {@code fd} is not a pipe ({@code EBADF}) or not open
     * @throws UnsupportedOperationException off Linux
     */
    public static int size(int fd) throws NativeIoException {
        return fcntl(fd, Flags.F_GETPIPE_SZ, 0, "F_GETPIPE_SZ");
    }

    /**
     * Resizes the pipe behind file descriptor {@code fd}.
     *
     * @param fd the descriptor, e.g. 1 for standard output
     * @param bytes the capacity wanted; the kernel rounds it up
     * @return the capacity the kernel set, at least {@code bytes}
     * @throws NativeIoException if {@code fd} is not a pipe ({@code EBADF}), if {@code bytes} exceeds
     *     the limit for this process ({@code EPERM}), or if it is smaller than the data the pipe holds
     *     ({@code EBUSY})
     * @throws UnsupportedOperationException off Linux
     */
    public static int resize(int fd, int bytes) throws NativeIoException {
        return fcntl(fd, Flags.F_SETPIPE_SZ, bytes, "F_SETPIPE_SZ");
    }

    private static int fcntl(int fd, int cmd, int arg, String name) throws NativeIoException {
        LibC.checkSupported();
        return Sys.check(Sys.fcntl(fd, cmd, arg), "fcntl", "cmd=" + name + " fd=" + fd + " arg=" + arg);
    }
}
