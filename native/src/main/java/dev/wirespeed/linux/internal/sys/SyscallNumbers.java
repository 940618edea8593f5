package dev.wirespeed.linux.internal.sys;

/**
 * The numbers of the system calls the library makes by number ({@link Syscalls}) rather than through
 * the C library's wrappers ({@link LibC}'s class comment says why), or that the C library does not wrap: the x86-64 table, or the generic one
 * that arm64 and riscv64 share. On any other architecture each is -1 and {@link LibC#checkSupported()}
 * refuses the native path, naming the architecture.
 */
public final class SyscallNumbers {
    /** {@code os.arch} as the JVM names it. */
    static final String ARCH = System.getProperty("os.arch", "");
    static final boolean X86_64 = ARCH.equals("amd64") || ARCH.equals("x86_64");
    private static final boolean GENERIC = ARCH.equals("aarch64") || ARCH.equals("riscv64");
    static final boolean KNOWN = X86_64 || GENERIC;

    public static final long READ = number(0, 63);
    public static final long WRITE = number(1, 64);
    public static final long SENDTO = number(44, 206);
    public static final long RECVFROM = number(45, 207);
    public static final long SENDMSG = number(46, 211);
    /** A descriptor passed over a Unix socket ({@code SCM_RIGHTS}) is received with this, off the hot path. */
    public static final long RECVMSG = number(47, 212);
    /** {@code epoll_pwait} with no signal mask is {@code epoll_wait}, which the generic table lacks. */
    public static final long EPOLL_PWAIT = number(281, 22);
    /** The socket calls made off the hot path, and {@code close} and {@code fcntl} for any descriptor. */
    public static final long CLOSE = number(3, 57);
    public static final long FCNTL = number(72, 25);
    public static final long SOCKET = number(41, 198);
    public static final long CONNECT = number(42, 203);
    public static final long SHUTDOWN = number(48, 210);
    public static final long GETPEERNAME = number(52, 205);
    public static final long SETSOCKOPT = number(54, 208);
    public static final long GETSOCKOPT = number(55, 209);
    /** A listening socket's calls, and the pipe's, the poller's and its wake-up descriptor's. */
    public static final long BIND = number(49, 200);
    public static final long LISTEN = number(50, 201);
    public static final long GETSOCKNAME = number(51, 204);
    public static final long ACCEPT4 = number(288, 242);
    public static final long PIPE2 = number(293, 59);
    public static final long EPOLL_CTL = number(233, 21);
    public static final long EVENTFD2 = number(290, 19);
    public static final long EPOLL_CREATE1 = number(291, 20);
    /** A memory file, for a shared ring with no name in any file system. */
    public static final long MEMFD_CREATE = number(319, 279);
    /** A shared ring's reader sleeps on its word, and its writer wakes it. */
    public static final long FUTEX = number(202, 98);
    /** The calls added since Linux 5.1 have one number on every architecture. */
    public static final long IO_URING_SETUP = number(425, 425);
    public static final long IO_URING_ENTER = number(426, 426);
    public static final long IO_URING_REGISTER = number(427, 427);
    public static final long CACHESTAT = number(451, 451);

    private SyscallNumbers() {
    }

    private static long number(long x86, long generic) {
        return X86_64 ? x86 : GENERIC ? generic : -1;
    }
}
