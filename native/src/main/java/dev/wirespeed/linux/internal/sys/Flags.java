package dev.wirespeed.linux.internal.sys;

/** The flag and option values the module passes to the kernel, from Linux's headers, each defined once. */
public final class Flags {
    /** {@code open}: read only. */
    public static final int O_RDONLY = 0;
    /** {@code fcntl} and {@code open}: non-blocking. */
    public static final int O_NONBLOCK = 0x800;
    /** {@code open} and {@code pipe2}: close on exec. */
    public static final int O_CLOEXEC = 0x80000;
    /** {@code fcntl}: read the file status flags. */
    public static final int F_GETFL = 3;
    /** {@code fcntl}: write the file status flags. */
    public static final int F_SETFL = 4;
    /** {@code fcntl}: add seals to a memory file ({@code F_LINUX_SPECIFIC_BASE + 9}). */
    public static final int F_ADD_SEALS = 1033;
    /** {@code fcntl}: read a memory file's seals ({@code F_LINUX_SPECIFIC_BASE + 10}). */
    public static final int F_GET_SEALS = 1034;
    /** A seal: no seal may be added any more. */
    public static final int F_SEAL_SEAL = 0x1;
    /** A seal: the file may not be made shorter. */
    public static final int F_SEAL_SHRINK = 0x2;
    /** A seal: the file may not be made longer. */
    public static final int F_SEAL_GROW = 0x4;
    /** {@code memfd_create}: close on exec. */
    public static final int MFD_CLOEXEC = 0x1;
    /** {@code memfd_create}: seals may be added. */
    public static final int MFD_ALLOW_SEALING = 0x2;
    /** {@code memfd_create}: never executable, sealed so (Linux 6.3); implies {@link #MFD_ALLOW_SEALING}. */
    public static final int MFD_NOEXEC_SEAL = 0x8;
    /** {@code fcntl}: set a pipe's capacity ({@code F_LINUX_SPECIFIC_BASE + 7}). */
    public static final int F_SETPIPE_SZ = 1031;
    /** {@code fcntl}: read a pipe's capacity ({@code F_LINUX_SPECIFIC_BASE + 8}). */
    public static final int F_GETPIPE_SZ = 1032;
    /** {@code socket}: a stream socket. */
    public static final int SOCK_STREAM = 1;
    /** {@code socket} and {@code accept4}: close on exec. */
    public static final int SOCK_CLOEXEC = 0x80000;
    /** {@code socket} and {@code accept4}: non-blocking. */
    public static final int SOCK_NONBLOCK = 0x800;
    /** {@code setsockopt}: the socket level. */
    public static final int SOL_SOCKET = 1;
    /** {@code SOL_SOCKET}: reuse a local address in {@code TIME_WAIT}. */
    public static final int SO_REUSEADDR = 2;
    /** {@code SOL_SOCKET}: the socket's pending error, read once (a non-blocking connect's outcome). */
    public static final int SO_ERROR = 4;
    /** {@code SOL_SOCKET}: what {@code close} does with unsent bytes. */
    public static final int SO_LINGER = 13;
    /** {@code setsockopt}: the TCP level. */
    public static final int IPPROTO_TCP = 6;
    /** {@code IPPROTO_TCP}: Nagle's algorithm off. */
    public static final int TCP_NODELAY = 1;
    /** {@code send}: {@code EPIPE} instead of a {@code SIGPIPE} when the peer has gone. */
    public static final int MSG_NOSIGNAL = 0x4000;
    /**
     * {@code MSG_DONTWAIT}: this one call does not wait, whatever the descriptor's {@code O_NONBLOCK}; the
     * critical calls of {@code FdCalls} pass it.
     */
    public static final int MSG_DONTWAIT = 0x40;
    /** {@code recvmsg}: the control data did not fit the buffer given; what did not fit was dropped. */
    public static final int MSG_CTRUNC = 0x8;
    /** {@code recvmsg}: descriptors received with {@code SCM_RIGHTS} are made close-on-exec. */
    public static final int MSG_CMSG_CLOEXEC = 0x40000000;
    /** A control message of {@code SOL_SOCKET}: descriptors passed. */
    public static final int SCM_RIGHTS = 1;
    /** {@code shutdown}: the reading side. */
    public static final int SHUT_RD = 0;
    /** {@code shutdown}: the writing side. */
    public static final int SHUT_WR = 1;
    /** {@code shutdown}: both sides. */
    public static final int SHUT_RDWR = 2;
    /** {@code eventfd}: non-blocking. */
    public static final int EFD_NONBLOCK = 0x800;
    /** {@code eventfd}: close on exec. */
    public static final int EFD_CLOEXEC = 0x80000;
    /** {@code poll}: readable. */
    public static final int POLLIN = 1;

    private Flags() {
    }
}
