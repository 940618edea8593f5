package dev.wirespeed.linux.internal.sys;

import java.lang.foreign.MemorySegment;
import java.lang.ref.Reference;

/**
 * The data calls of the descriptor channels, repeated while a signal interrupts them ({@code EINTR}),
 * and the epoll poller's wait: each returns the call's count (0 and up), or minus the {@code errno} of
 * any other failure, so that the caller decides what {@code EAGAIN} and the rest mean, without an
 * exception or an allocation per call. Each is a {@link Syscalls} call, which says how it is made; the
 * {@code capture} each takes is that class's.
 *
 * <p>The {@code ...NonBlocking} methods make a call that cannot wait as a critical call
 * ({@link Syscalls#callNow}), which skips the thread-state changes around it: {@link #recvNonBlocking},
 * {@link #sendNonBlocking} and {@link #sendmsgNonBlocking} pass {@code MSG_DONTWAIT}, which makes the
 * call return at once whatever the socket's mode; for {@link #readNonBlocking} and
 * {@link #writeNonBlocking} the caller vouches for the descriptor's mode.
 */
public final class FdCalls {
    /** The kernel's signal set, in bytes: what {@code epoll_pwait} checks its last argument against. */
    private static final long SIGSET_SIZE = 8;
    private static final long EINTR = -Errno.EINTR;

    private FdCalls() {
    }

    /** {@code read(2)} of up to {@code length} bytes at {@code address}. */
    public static long read(MemorySegment capture, int fd, long address, long length) {
        long n;
        do {
            n = Syscalls.call(capture, SyscallNumbers.READ, fd, address, length, 0, 0, 0);
        } while (n == EINTR);
        return n;
    }

    /**
     * {@link #read} as a critical call: only for a descriptor in non-blocking mode that no other process
     * or channel can switch back to blocking mode (a pipe this process made, its mode set by its one
     * channel), since {@code read(2)} takes no flag that says so per call. A critical call that waits
     * holds up every safepoint of the JVM until it returns.
     */
    public static long readNonBlocking(MemorySegment capture, int fd, long address, long length) {
        long n;
        do {
            n = Syscalls.callNow(capture, SyscallNumbers.READ, fd, address, length, 0, 0, 0);
        } while (n == EINTR);
        return n;
    }

    /** {@code recv(2)} of up to {@code length} bytes at {@code address}, with {@code flags}: sockets only. */
    public static long recv(MemorySegment capture, int fd, long address, long length, int flags) {
        long n;
        do {
            n = Syscalls.call(capture, SyscallNumbers.RECVFROM, fd, address, length, flags, 0, 0);
        } while (n == EINTR);
        return n;
    }

    /** {@code write(2)} of up to {@code length} bytes at {@code address}. */
    public static long write(MemorySegment capture, int fd, long address, long length) {
        long n;
        do {
            n = Syscalls.call(capture, SyscallNumbers.WRITE, fd, address, length, 0, 0, 0);
        } while (n == EINTR);
        return n;
    }

    /** {@link #write} as a critical call: only for such a descriptor as {@link #readNonBlocking}'s. */
    public static long writeNonBlocking(MemorySegment capture, int fd, long address, long length) {
        long n;
        do {
            n = Syscalls.callNow(capture, SyscallNumbers.WRITE, fd, address, length, 0, 0, 0);
        } while (n == EINTR);
        return n;
    }

    /**
     * {@code epoll_wait(2)}, made as {@code epoll_pwait} with no signal mask: up to {@code maxEvents}
     * events into the {@code struct epoll_event}s at {@code events}, waiting up to {@code timeoutMillis}
     * (-1: without limit). Unlike the other calls it returns {@code -EINTR} rather than make the call
     * again, whose timeout would start over.
     */
    public static int epollWait(MemorySegment capture, int epfd, long events, int maxEvents, int timeoutMillis) {
        return (int) Syscalls.call(capture, SyscallNumbers.EPOLL_PWAIT, epfd, events, maxEvents, timeoutMillis, 0,
                SIGSET_SIZE);
    }

    /** {@link #epollWait} with a zero timeout, which returns at once: a critical call. */
    public static int epollWaitNow(MemorySegment capture, int epfd, long events, int maxEvents) {
        return (int) Syscalls.callNow(capture, SyscallNumbers.EPOLL_PWAIT, epfd, events, maxEvents, 0, 0, SIGSET_SIZE);
    }

    /** {@code sendmsg(2)} of the {@code struct msghdr} at {@code message}, with {@code flags}. */
    public static long sendmsg(MemorySegment capture, int fd, MemorySegment message, int flags) {
        long n;
        do {
            n = Syscalls.call(capture, SyscallNumbers.SENDMSG, fd, message.address(), flags, 0, 0, 0);
            Reference.reachabilityFence(message); // passed by address: its arena may be automatic
        } while (n == EINTR);
        return n;
    }

    /** {@code recvmsg(2)} into the {@code struct msghdr} at {@code message}, with {@code flags}. */
    public static long recvmsg(MemorySegment capture, int fd, MemorySegment message, int flags) {
        long n;
        do {
            n = Syscalls.call(capture, SyscallNumbers.RECVMSG, fd, message.address(), flags, 0, 0, 0);
            Reference.reachabilityFence(message); // passed by address
        } while (n == EINTR);
        return n;
    }

    /** {@code send(2)} of up to {@code length} bytes at {@code address}, with {@code flags}. */
    public static long send(MemorySegment capture, int fd, long address, long length, int flags) {
        long n;
        do {
            n = Syscalls.call(capture, SyscallNumbers.SENDTO, fd, address, length, flags, 0, 0);
        } while (n == EINTR);
        return n;
    }

    /**
     * {@link #recv} with {@code MSG_DONTWAIT} added to {@code flags}, which makes the call return at once
     * whatever the socket's mode: a critical call.
     */
    public static long recvNonBlocking(MemorySegment capture, int fd, long address, long length, int flags) {
        long n;
        do {
            n = Syscalls.callNow(capture, SyscallNumbers.RECVFROM, fd, address, length, flags | Flags.MSG_DONTWAIT,
                    0, 0);
        } while (n == EINTR);
        return n;
    }

    /**
     * {@link #send} with {@code MSG_DONTWAIT} added to {@code flags}, which makes the call return at once
     * whatever the socket's mode: a critical call.
     */
    public static long sendNonBlocking(MemorySegment capture, int fd, long address, long length, int flags) {
        long n;
        do {
            n = Syscalls.callNow(capture, SyscallNumbers.SENDTO, fd, address, length, flags | Flags.MSG_DONTWAIT,
                    0, 0);
        } while (n == EINTR);
        return n;
    }

    /**
     * {@link #sendmsg} with {@code MSG_DONTWAIT} added to {@code flags}, which makes the call return at once
     * whatever the socket's mode: a critical call.
     */
    public static long sendmsgNonBlocking(MemorySegment capture, int fd, MemorySegment message, int flags) {
        long n;
        do {
            n = Syscalls.callNow(capture, SyscallNumbers.SENDMSG, fd, message.address(), flags | Flags.MSG_DONTWAIT,
                    0, 0, 0);
            Reference.reachabilityFence(message); // passed by address: its arena may be automatic
        } while (n == EINTR);
        return n;
    }
}
