package dev.wirespeed.linux.internal.sys;

import java.lang.foreign.MemorySegment;

/**
 * The {@code errno} values the module tells apart (Linux's generic numbers, the same on x86-64 and
 * arm64), and the C library's text for any of them.
 */
public final class Errno {
    /** Operation not permitted. */
    public static final int EPERM = 1;
    /** No such file or directory: a Unix socket's path that does not exist. */
    public static final int ENOENT = 2;
    /** Interrupted system call: the call is repeated. */
    public static final int EINTR = 4;
    /** Bad file descriptor: a closed one, where the channel was closed. */
    public static final int EBADF = 9;
    /** Try again: a non-blocking call that would wait. */
    public static final int EAGAIN = 11;
    /** Out of memory (for io_uring: the locked-memory limit). */
    public static final int ENOMEM = 12;
    /** Invalid argument: for {@code fcntl(F_GET_SEALS)}, a file that cannot be sealed (not a memory file). */
    public static final int EINVAL = 22;
    /** Device or resource busy. */
    public static final int EBUSY = 16;
    /** Function not implemented: the kernel lacks the call. */
    public static final int ENOSYS = 38;
    /** Timer expired: a bounded wait ended. */
    public static final int ETIME = 62;
    /** Connection timed out; a futex wait whose timeout passed. */
    public static final int ETIMEDOUT = 110;
    /** Operation not supported on this socket. */
    public static final int EOPNOTSUPP = 95;
    /** No buffer space: every provided buffer is taken. */
    public static final int ENOBUFS = 105;
    /** The socket is not connected: a connect still under way, for {@code getpeername}. */
    public static final int ENOTCONN = 107;
    /** Connection refused: nothing listens at the address. */
    public static final int ECONNREFUSED = 111;
    /** A non-blocking connect has begun and goes on. */
    public static final int EINPROGRESS = 115;
    /** Operation cancelled. */
    public static final int ECANCELED = 125;

    private Errno() {
    }

    /**
     * {@return the C library's text for {@code errno}, or {@code "errno N"} where it has none}
     *
     * @param errno the value
     */
    public static String strerror(int errno) {
        if (LibC.Messages.STRERROR == null) {
            return "errno " + errno;
        }
        try {
            MemorySegment text = (MemorySegment) LibC.Messages.STRERROR.invokeExact(errno);
            return text.equals(MemorySegment.NULL) ? "errno " + errno : text.getString(0);
        } catch (Throwable t) {
            return "errno " + errno;
        }
    }
}
