package dev.wirespeed.linux.internal.sys;

import dev.wirespeed.linux.NativeIoException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The socket calls off the hot path, each in its own confined arena: {@code socket}, {@code fcntl},
 * {@code setsockopt}/{@code getsockopt}, {@code getpeername}, {@code shutdown}, {@code close}. Failures become
 * {@link NativeIoException}s naming the call and its arguments.
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
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment capture = LibC.captureSegment(arena);
            int rc = (int) LibC.SOCKET.invokeExact(capture, family, Flags.SOCK_STREAM | Flags.SOCK_CLOEXEC | flags, 0);
            return new Result(rc, rc < 0 ? LibC.errno(capture) : 0);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("socket down-call failed", t);
        }
    }

    public static Result fcntl(int fd, int cmd, int arg) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment capture = LibC.captureSegment(arena);
            int rc = (int) LibC.FCNTL_INT.invokeExact(capture, fd, cmd, arg);
            return new Result(rc, rc < 0 ? LibC.errno(capture) : 0);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("fcntl down-call failed", t);
        }
    }

    public static void setIntOption(int fd, int level, int name, int value, String optionName) throws NativeIoException {
        try (Arena arena = Arena.ofConfined()) {
            setOption(fd, level, name, arena.allocateFrom(ValueLayout.JAVA_INT, value), optionName + "=" + value, arena);
        }
    }

    public static void setOption(int fd, int level, int name, MemorySegment value, String what, Arena arena)
            throws NativeIoException {
        try {
            MemorySegment capture = LibC.captureSegment(arena);
            int rc = (int) LibC.SETSOCKOPT.invokeExact(capture, fd, level, name, value, (int) value.byteSize());
            if (rc < 0) {
                throw new NativeIoException("setsockopt", LibC.errno(capture), "fd=" + fd + " option=" + what);
            }
        } catch (NativeIoException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("setsockopt down-call failed", t);
        }
    }

    public static int getIntOption(int fd, int level, int name, String optionName) throws NativeIoException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment value = arena.allocate(ValueLayout.JAVA_INT);
            MemorySegment length = arena.allocateFrom(ValueLayout.JAVA_INT, Integer.BYTES);
            MemorySegment capture = LibC.captureSegment(arena);
            int rc = (int) LibC.GETSOCKOPT.invokeExact(capture, fd, level, name, value, length);
            if (rc < 0) {
                throw new NativeIoException("getsockopt", LibC.errno(capture), "fd=" + fd + " option=" + optionName);
            }
            return value.get(ValueLayout.JAVA_INT, 0);
        } catch (NativeIoException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("getsockopt down-call failed", t);
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
            MemorySegment capture = LibC.captureSegment(arena);
            int rc = (int) LibC.GETPEERNAME.invokeExact(capture, fd, storage, length);
            if (rc == 0) {
                return true;
            }
            int errno = LibC.errno(capture);
            if (errno == Errno.ENOTCONN) {
                return false;
            }
            throw new NativeIoException("getpeername", errno, "fd=" + fd);
        } catch (NativeIoException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("getpeername down-call failed", t);
        }
    }

    public static void shutdown(int fd, int how) throws NativeIoException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment capture = LibC.captureSegment(arena);
            int rc = (int) LibC.SHUTDOWN.invokeExact(capture, fd, how);
            if (rc < 0) {
                throw new NativeIoException("shutdown", LibC.errno(capture), "fd=" + fd + " how=" + how);
            }
        } catch (NativeIoException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("shutdown down-call failed", t);
        }
    }

    /**
     * Sets or clears {@code O_NONBLOCK} on {@code fd}'s open file description, with one {@code fcntl}
     * to read the flags and, where they change, one to write them.
     *
     * @param detail what a failure names besides the command, e.g. {@code "fd=7"}
     */
    public static void setBlocking(int fd, boolean block, String detail) throws NativeIoException {
        int flags = check(fcntl(fd, Flags.F_GETFL, 0), "fcntl", "cmd=F_GETFL " + detail);
        int wanted = block ? flags & ~Flags.O_NONBLOCK : flags | Flags.O_NONBLOCK;
        if (wanted != flags) {
            check(fcntl(fd, Flags.F_SETFL, wanted), "fcntl", "cmd=F_SETFL " + detail + " flags=" + wanted);
        }
    }

    public static void close(int fd) throws NativeIoException {
        try (Arena arena = Arena.ofConfined()) {
            close(fd, LibC.captureSegment(arena), null);
        }
    }

    /**
     * Closes {@code fd}, its errno captured in {@code capture}: no allocation, for callers that keep a
     * capture segment. A failure names the descriptor and {@code file}, where not null.
     */
    public static void close(int fd, MemorySegment capture, java.nio.file.Path file) throws NativeIoException {
        try {
            int rc = (int) LibC.CLOSE.invokeExact(capture, fd);
            // After EINTR Linux has closed the descriptor already: retrying could close another file.
            if (rc < 0 && LibC.errno(capture) != Errno.EINTR) {
                throw new NativeIoException("close", LibC.errno(capture),
                        (file == null ? "" : "file=" + file + " ") + "fd=" + fd);
            }
        } catch (NativeIoException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("close down-call failed", t);
        }
    }

    public static void closeQuietly(int fd) {
        try {
            close(fd);
        } catch (NativeIoException e) {
            // Already failing for another reason: that one is reported.
        }
    }
}
