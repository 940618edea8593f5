package dev.wirespeed.linux.internal.sys;

import java.lang.foreign.MemorySegment;
import java.lang.ref.Reference;

/**
 * The data calls of the descriptor channels, repeated while a signal interrupts them ({@code EINTR}),
 * and the epoll poller's wait: each returns the call's count (0 and up), or minus the {@code errno} of
 * any other failure, so that the caller decides what {@code EAGAIN} and the rest mean, without an
 * exception or an allocation per call. Each is made through {@link LibC#STUB_6} where it is there, which
 * returns minus the errno itself and so leaves no errno to capture, and through {@code syscall(2)} with
 * the errno captured where it is not; never through the C library's wrapper, which in the JVM's
 * multi-threaded process adds two atomic updates of the thread's cancellation state per call
 * ({@link LibC}).
 *
 * <p>The {@code ...NonBlocking} methods make a call that cannot wait as a critical call ({@link LibC}'s
 * {@code ..._CRITICAL} handles), which skips the thread-state changes around it: {@link #recvNonBlocking},
 * {@link #sendNonBlocking} and {@link #sendmsgNonBlocking} pass {@code MSG_DONTWAIT}, which makes the
 * call return at once whatever the socket's mode; for {@link #readNonBlocking} and
 * {@link #writeNonBlocking} the caller vouches for the descriptor's mode. Each method calls one handle,
 * straight: {@link LibC#STUB_CALLS} is a constant, so the JIT compiles one of the two paths and drops
 * the other, and no frame stands between a channel's read or write and the down-call. Each takes the
 * segment {@code syscall(2)}'s errno is captured into, which may be {@code null} where
 * {@link LibC#STUB_CALLS}.
 */
public final class FdCalls {
    /** The kernel's signal set, in bytes: what {@code epoll_pwait} checks its last argument against. */
    private static final long SIGSET_SIZE = 8;
    private static final long EINTR = -Errno.EINTR;

    private FdCalls() {
    }

    /** {@code read(2)} of up to {@code length} bytes at {@code address}. */
    public static long read(MemorySegment capture, int fd, long address, long length) {
        try {
            long n;
            do {
                n = LibC.STUB_CALLS
                        ? (long) LibC.STUB_6.invokeExact(SyscallNumbers.READ, (long) fd, address, length, 0L, 0L, 0L)
                        : result(capture, (long) LibC.SYSCALL_3.invokeExact(capture, SyscallNumbers.READ, (long) fd,
                                address, length));
            } while (n == EINTR);
            return n;
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("read down-call failed", t);
        }
    }

    /**
     * {@link #read} as a critical call: only for a descriptor in non-blocking mode that no other process
     * or channel can switch back to blocking mode (a pipe this process made, its mode set by its one
     * channel), since {@code read(2)} takes no flag that says so per call. A critical call that waits
     * holds up every safepoint of the JVM until it returns.
     */
    public static long readNonBlocking(MemorySegment capture, int fd, long address, long length) {
        try {
            long n;
            do {
                n = LibC.STUB_CALLS
                        ? (long) LibC.STUB_6_CRITICAL.invokeExact(SyscallNumbers.READ, (long) fd, address, length, 0L,
                                0L, 0L)
                        : result(capture, (long) LibC.SYSCALL_3_CRITICAL.invokeExact(capture, SyscallNumbers.READ,
                                (long) fd, address, length));
            } while (n == EINTR);
            return n;
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("read down-call failed", t);
        }
    }

    /** {@code recv(2)} of up to {@code length} bytes at {@code address}, with {@code flags}: sockets only. */
    public static long recv(MemorySegment capture, int fd, long address, long length, int flags) {
        try {
            long n;
            do {
                n = LibC.STUB_CALLS
                        ? (long) LibC.STUB_6.invokeExact(SyscallNumbers.RECVFROM, (long) fd, address, length,
                                (long) flags, 0L, 0L)
                        : result(capture, (long) LibC.SYSCALL_6.invokeExact(capture, SyscallNumbers.RECVFROM,
                                (long) fd, address, length, (long) flags, 0L, 0L));
            } while (n == EINTR);
            return n;
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("recv down-call failed", t);
        }
    }

    /** {@code write(2)} of up to {@code length} bytes at {@code address}. */
    public static long write(MemorySegment capture, int fd, long address, long length) {
        try {
            long n;
            do {
                n = LibC.STUB_CALLS
                        ? (long) LibC.STUB_6.invokeExact(SyscallNumbers.WRITE, (long) fd, address, length, 0L, 0L, 0L)
                        : result(capture, (long) LibC.SYSCALL_3.invokeExact(capture, SyscallNumbers.WRITE, (long) fd,
                                address, length));
            } while (n == EINTR);
            return n;
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("write down-call failed", t);
        }
    }

    /** {@link #write} as a critical call: only for such a descriptor as {@link #readNonBlocking}'s. */
    public static long writeNonBlocking(MemorySegment capture, int fd, long address, long length) {
        try {
            long n;
            do {
                n = LibC.STUB_CALLS
                        ? (long) LibC.STUB_6_CRITICAL.invokeExact(SyscallNumbers.WRITE, (long) fd, address, length, 0L,
                                0L, 0L)
                        : result(capture, (long) LibC.SYSCALL_3_CRITICAL.invokeExact(capture, SyscallNumbers.WRITE,
                                (long) fd, address, length));
            } while (n == EINTR);
            return n;
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("write down-call failed", t);
        }
    }

    /**
     * {@code epoll_wait(2)}, made as {@code epoll_pwait} with no signal mask: up to {@code maxEvents}
     * events into the {@code struct epoll_event}s at {@code events}, waiting up to {@code timeoutMillis}
     * (-1: without limit). Unlike the other calls it returns {@code -EINTR} rather than make the call
     * again, whose timeout would start over.
     */
    public static int epollWait(MemorySegment capture, int epfd, long events, int maxEvents, int timeoutMillis) {
        try {
            return (int) (LibC.STUB_CALLS
                    ? (long) LibC.STUB_6.invokeExact(SyscallNumbers.EPOLL_PWAIT, (long) epfd, events, (long) maxEvents,
                            (long) timeoutMillis, 0L, SIGSET_SIZE)
                    : result(capture, (long) LibC.SYSCALL_6.invokeExact(capture, SyscallNumbers.EPOLL_PWAIT,
                            (long) epfd, events, (long) maxEvents, (long) timeoutMillis, 0L, SIGSET_SIZE)));
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("epoll_pwait down-call failed", t);
        }
    }

    /** {@link #epollWait} with a zero timeout, which returns at once: a critical call. */
    public static int epollWaitNow(MemorySegment capture, int epfd, long events, int maxEvents) {
        try {
            return (int) (LibC.STUB_CALLS
                    ? (long) LibC.STUB_6_CRITICAL.invokeExact(SyscallNumbers.EPOLL_PWAIT, (long) epfd, events,
                            (long) maxEvents, 0L, 0L, SIGSET_SIZE)
                    : result(capture, (long) LibC.SYSCALL_6_CRITICAL.invokeExact(capture, SyscallNumbers.EPOLL_PWAIT,
                            (long) epfd, events, (long) maxEvents, 0L, 0L, SIGSET_SIZE)));
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("epoll_pwait down-call failed", t);
        }
    }

    /** {@code sendmsg(2)} of the {@code struct msghdr} at {@code message}, with {@code flags}. */
    public static long sendmsg(MemorySegment capture, int fd, MemorySegment message, int flags) {
        try {
            long n;
            do {
                n = LibC.STUB_CALLS
                        ? (long) LibC.STUB_6.invokeExact(SyscallNumbers.SENDMSG, (long) fd, message.address(),
                                (long) flags, 0L, 0L, 0L)
                        : result(capture, (long) LibC.SYSCALL_3.invokeExact(capture, SyscallNumbers.SENDMSG,
                                (long) fd, message.address(), (long) flags));
                Reference.reachabilityFence(message); // passed by address: its arena may be automatic
            } while (n == EINTR);
            return n;
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("sendmsg down-call failed", t);
        }
    }

    /** {@code send(2)} of up to {@code length} bytes at {@code address}, with {@code flags}. */
    public static long send(MemorySegment capture, int fd, long address, long length, int flags) {
        try {
            long n;
            do {
                n = LibC.STUB_CALLS
                        ? (long) LibC.STUB_6.invokeExact(SyscallNumbers.SENDTO, (long) fd, address, length,
                                (long) flags, 0L, 0L)
                        : result(capture, (long) LibC.SYSCALL_6.invokeExact(capture, SyscallNumbers.SENDTO,
                                (long) fd, address, length, (long) flags, 0L, 0L));
            } while (n == EINTR);
            return n;
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("send down-call failed", t);
        }
    }

    /**
     * {@link #recv} with {@code MSG_DONTWAIT} added to {@code flags}, which makes the call return at once
     * whatever the socket's mode: a critical call.
     */
    public static long recvNonBlocking(MemorySegment capture, int fd, long address, long length, int flags) {
        try {
            long dontWait = flags | Flags.MSG_DONTWAIT;
            long n;
            do {
                n = LibC.STUB_CALLS
                        ? (long) LibC.STUB_6_CRITICAL.invokeExact(SyscallNumbers.RECVFROM, (long) fd, address, length,
                                dontWait, 0L, 0L)
                        : result(capture, (long) LibC.SYSCALL_6_CRITICAL.invokeExact(capture, SyscallNumbers.RECVFROM,
                                (long) fd, address, length, dontWait, 0L, 0L));
            } while (n == EINTR);
            return n;
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("recv down-call failed", t);
        }
    }

    /**
     * {@link #send} with {@code MSG_DONTWAIT} added to {@code flags}, which makes the call return at once
     * whatever the socket's mode: a critical call.
     */
    public static long sendNonBlocking(MemorySegment capture, int fd, long address, long length, int flags) {
        try {
            long dontWait = flags | Flags.MSG_DONTWAIT;
            long n;
            do {
                n = LibC.STUB_CALLS
                        ? (long) LibC.STUB_6_CRITICAL.invokeExact(SyscallNumbers.SENDTO, (long) fd, address, length,
                                dontWait, 0L, 0L)
                        : result(capture, (long) LibC.SYSCALL_6_CRITICAL.invokeExact(capture, SyscallNumbers.SENDTO,
                                (long) fd, address, length, dontWait, 0L, 0L));
            } while (n == EINTR);
            return n;
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("send down-call failed", t);
        }
    }

    /**
     * {@link #sendmsg} with {@code MSG_DONTWAIT} added to {@code flags}, which makes the call return at once
     * whatever the socket's mode: a critical call.
     */
    public static long sendmsgNonBlocking(MemorySegment capture, int fd, MemorySegment message, int flags) {
        try {
            long dontWait = flags | Flags.MSG_DONTWAIT;
            long n;
            do {
                n = LibC.STUB_CALLS
                        ? (long) LibC.STUB_6_CRITICAL.invokeExact(SyscallNumbers.SENDMSG, (long) fd, message.address(),
                                dontWait, 0L, 0L, 0L)
                        : result(capture, (long) LibC.SYSCALL_3_CRITICAL.invokeExact(capture, SyscallNumbers.SENDMSG,
                                (long) fd, message.address(), dontWait));
                Reference.reachabilityFence(message); // passed by address: its arena may be automatic
            } while (n == EINTR);
            return n;
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("sendmsg down-call failed", t);
        }
    }

    /** {@return {@code n}, or minus the captured errno where {@code syscall(2)} returned -1} */
    private static long result(MemorySegment capture, long n) {
        return n >= 0 ? n : -LibC.errno(capture);
    }
}
