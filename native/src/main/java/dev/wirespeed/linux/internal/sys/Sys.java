package dev.wirespeed.linux.internal.sys;

import dev.wirespeed.linux.NativeIoException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The socket calls off the hot path, made by number through {@link Syscalls}, each with what it points
 * to in a confined arena (or in a segment its caller keeps), and an errno capture only where the stub
 * does not return the errno: {@code socket}, {@code fcntl}, {@code setsockopt}/{@code getsockopt},
 * {@code getpeername}, {@code shutdown}, {@code close}. Failures become {@link NativeIoException}s naming
 * the call and its arguments; a message is built only for a failure.
 */
public final class Sys {
    private Sys() {
    }

    /** A call's result and errno: {@code rc >= 0} or the errno it set. */
    public record Result(int rc, int errno) {
    }

    public static int check(Result result, String call, String detail) throws NativeIoException {
        if (result.rc < 0) {
            throw new NativeIoException(call, result.errno, detail);
        }
        return result.rc;
    }

    public static Result socket(int family) {
        return socket(family, 0);
    }

    /** {@return a stream socket of {@code family}, close-on-exec, with {@code flags} ({@code SOCK_NONBLOCK}) added} */
    public static Result socket(int family, int flags) {
        return result(call(SyscallNumbers.SOCKET, family, Flags.SOCK_STREAM | Flags.SOCK_CLOEXEC | flags, 0, 0, 0));
    }

    public static Result fcntl(int fd, int cmd, int arg) {
        return result(call(SyscallNumbers.FCNTL, fd, cmd, arg, 0, 0));
    }

    public static void setIntOption(int fd, int level, int name, int value, String optionName) throws NativeIoException {
        try (Arena arena = Arena.ofConfined()) {
            setIntOption(fd, level, name, value, optionName, arena.allocate(ValueLayout.JAVA_INT));
        }
    }

    /**
     * As {@link #setIntOption(int, int, int, int, String)}, the value passed through {@code scratch}, at
     * least 4 bytes its caller keeps: nothing allocated unless the call fails.
     */
    public static void setIntOption(int fd, int level, int name, int value, String optionName, MemorySegment scratch)
            throws NativeIoException {
        scratch.set(ValueLayout.JAVA_INT, 0, value);
        long rc = call(SyscallNumbers.SETSOCKOPT, fd, level, name, scratch.address(), Integer.BYTES);
        if (rc < 0) {
            throw new NativeIoException("setsockopt", (int) -rc, "fd=" + fd + " option=" + optionName + "=" + value);
        }
    }

    public static void setOption(int fd, int level, int name, MemorySegment value, String what, Arena arena)
            throws NativeIoException {
        long rc = Syscalls.call(Syscalls.capture(arena), SyscallNumbers.SETSOCKOPT, fd, level, name, value.address(),
                value.byteSize(), 0);
        if (rc < 0) {
            throw new NativeIoException("setsockopt", (int) -rc, "fd=" + fd + " option=" + what);
        }
    }

    public static int getIntOption(int fd, int level, int name, String optionName) throws NativeIoException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment value = arena.allocate(ValueLayout.JAVA_INT);
            MemorySegment length = arena.allocateFrom(ValueLayout.JAVA_INT, Integer.BYTES);
            long rc = Syscalls.call(Syscalls.capture(arena), SyscallNumbers.GETSOCKOPT, fd, level, name, value.address(),
                    length.address(), 0);
            if (rc < 0) {
                throw new NativeIoException("getsockopt", (int) -rc, "fd=" + fd + " option=" + optionName);
            }
            return value.get(ValueLayout.JAVA_INT, 0);
        }
    }

    /**
     * {@return whether {@code fd}, a socket, has a peer: false while its connect is under way ({@code ENOTCONN})}
     *
     * @throws NativeIoException if {@code getpeername} fails otherwise
     */
    public static boolean hasPeer(int fd) throws NativeIoException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment storage = arena.allocate(128); // sizeof(struct sockaddr_storage)
            MemorySegment length = arena.allocateFrom(ValueLayout.JAVA_INT, 128);
            long rc = Syscalls.call(Syscalls.capture(arena), SyscallNumbers.GETPEERNAME, fd, storage.address(),
                    length.address(), 0, 0, 0);
            if (rc == 0) {
                return true;
            }
            if (rc == -Errno.ENOTCONN) {
                return false;
            }
            throw new NativeIoException("getpeername", (int) -rc, "fd=" + fd);
        }
    }

    public static void shutdown(int fd, int how) throws NativeIoException {
        long rc = call(SyscallNumbers.SHUTDOWN, fd, how, 0, 0, 0);
        if (rc < 0) {
            throw new NativeIoException("shutdown", (int) -rc, "fd=" + fd + " how=" + how);
        }
    }

    /**
     * Sets or clears {@code O_NONBLOCK} on {@code fd}'s open file description, with one {@code fcntl}
     * to read the flags and, where they change, one to write them; a failure names the descriptor.
     * Nothing is allocated unless a call fails.
     */
    public static void setBlocking(int fd, boolean block) throws NativeIoException {
        setBlocking(fd, block, null);
    }

    /**
     * As {@link #setBlocking(int, boolean)}.
     *
     * @param detail what a failure names besides the command, e.g. {@code "fd=7 (stdin)"}; null for the
     *     descriptor alone
     */
    public static void setBlocking(int fd, boolean block, String detail) throws NativeIoException {
        long flags = call(SyscallNumbers.FCNTL, fd, Flags.F_GETFL, 0, 0, 0);
        if (flags < 0) {
            throw new NativeIoException("fcntl", (int) -flags, "cmd=F_GETFL " + (detail == null ? "fd=" + fd : detail));
        }
        long wanted = block ? flags & ~Flags.O_NONBLOCK : flags | Flags.O_NONBLOCK;
        if (wanted != flags) {
            long rc = call(SyscallNumbers.FCNTL, fd, Flags.F_SETFL, wanted, 0, 0);
            if (rc < 0) {
                throw new NativeIoException("fcntl", (int) -rc, "cmd=F_SETFL " + (detail == null ? "fd=" + fd : detail)
                        + " flags=" + wanted);
            }
        }
    }

    public static void close(int fd) throws NativeIoException {
        closed(fd, call(SyscallNumbers.CLOSE, fd, 0, 0, 0, 0), null);
    }

    /**
     * Closes {@code fd}, the errno captured in {@code capture} where {@link Syscalls} needs one: no
     * allocation, for callers that keep a capture segment. A failure names the descriptor and {@code file},
     * where not null.
     */
    public static void close(int fd, MemorySegment capture, java.nio.file.Path file) throws NativeIoException {
        closed(fd, Syscalls.call(capture, SyscallNumbers.CLOSE, fd, 0, 0, 0, 0, 0), file);
    }

    /** Refuses a failed close's {@code rc}, but for {@code EINTR}. */
    private static void closed(int fd, long rc, java.nio.file.Path file) throws NativeIoException {
        // After EINTR Linux has closed the descriptor already: retrying could close another file.
        if (rc < 0 && rc != -Errno.EINTR) {
            throw new NativeIoException("close", (int) -rc, (file == null ? "" : "file=" + file + " ") + "fd=" + fd);
        }
    }

    /**
     * One call of up to five arguments off the hot path: {@link Syscalls#call}, with an errno capture from a
     * confined arena only where the stub does not return the errno; else nothing allocated.
     */
    private static long call(long number, long a1, long a2, long a3, long a4, long a5) {
        if (LibC.STUB_CALLS) {
            return Syscalls.call(null, number, a1, a2, a3, a4, a5, 0);
        }
        try (Arena arena = Arena.ofConfined()) {
            return Syscalls.call(Syscalls.capture(arena), number, a1, a2, a3, a4, a5, 0);
        }
    }

    private static Result result(long rc) {
        return rc >= 0 ? new Result((int) rc, 0) : new Result(-1, (int) -rc);
    }

    public static void closeQuietly(int fd) {
        try {
            close(fd);
        } catch (NativeIoException e) {
            // Already failing for another reason: that one is reported.
        }
    }
}
