package dev.wirespeed.linux.internal.sys;

import java.lang.foreign.MemorySegment;

/**
 * The data calls of the descriptor channels, repeated while a signal interrupts them ({@code EINTR}):
 * each returns the call's count (0 and up), or minus the {@code errno} of any other failure, so that
 * the channel decides what {@code EAGAIN} and the rest mean, without an exception or an allocation
 * per call.
 */
public final class FdCalls {
    private FdCalls() {
    }

    /** {@code read(2)} of up to {@code length} bytes at {@code address}. */
    public static long read(MemorySegment capture, int fd, long address, long length) {
        try {
            while (true) {
                long n = (long) LibC.READ_AT.invokeExact(capture, fd, address, length);
                if (n >= 0) {
                    return n;
                }
                int errno = LibC.errno(capture);
                if (errno != Errno.EINTR) {
                    return -errno;
                }
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("read down-call failed", t);
        }
    }

    /** {@code recv(2)} of up to {@code length} bytes at {@code address}, with {@code flags}: sockets only. */
    public static long recv(MemorySegment capture, int fd, long address, long length, int flags) {
        try {
            while (true) {
                long n = (long) LibC.RECV_AT.invokeExact(capture, fd, address, length, flags);
                if (n >= 0) {
                    return n;
                }
                int errno = LibC.errno(capture);
                if (errno != Errno.EINTR) {
                    return -errno;
                }
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("recv down-call failed", t);
        }
    }

    /** {@code write(2)} of up to {@code length} bytes at {@code address}. */
    public static long write(MemorySegment capture, int fd, long address, long length) {
        try {
            while (true) {
                long n = (long) LibC.WRITE_AT.invokeExact(capture, fd, address, length);
                if (n >= 0) {
                    return n;
                }
                int errno = LibC.errno(capture);
                if (errno != Errno.EINTR) {
                    return -errno;
                }
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("write down-call failed", t);
        }
    }

    /** {@code sendmsg(2)} of the {@code struct msghdr} at {@code message}, with {@code flags}. */
    public static long sendmsg(MemorySegment capture, int fd, MemorySegment message, int flags) {
        try {
            while (true) {
                long n = (long) LibC.SENDMSG.invokeExact(capture, fd, message, flags);
                if (n >= 0) {
                    return n;
                }
                int errno = LibC.errno(capture);
                if (errno != Errno.EINTR) {
                    return -errno;
                }
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("sendmsg down-call failed", t);
        }
    }

    /** {@code send(2)} of up to {@code length} bytes at {@code address}, with {@code flags}. */
    public static long send(MemorySegment capture, int fd, long address, long length, int flags) {
        try {
            while (true) {
                long n = (long) LibC.SEND_AT.invokeExact(capture, fd, address, length, flags);
                if (n >= 0) {
                    return n;
                }
                int errno = LibC.errno(capture);
                if (errno != Errno.EINTR) {
                    return -errno;
                }
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("send down-call failed", t);
        }
    }
}
