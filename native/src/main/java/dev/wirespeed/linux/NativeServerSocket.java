package dev.wirespeed.linux;

import java.io.Closeable;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.SocketAddress;
import java.nio.channels.ClosedChannelException;

/**
 * A listening stream socket (TCP or Unix) whose connections are {@link NativeSocket}s.
 *
 * <p>{@link #accept()} blocks until a connection arrives. {@link #close()} from another thread
 * releases a blocked {@code accept}, which then throws {@link ClosedChannelException}. A TCP socket is
 * bound with {@code SO_REUSEADDR}; a Unix socket's file is neither removed before binding nor after
 * closing: that is the caller's choice.
 *
 * <p>Thread safety: {@code accept} from one thread at a time; {@code close} from any.
 *
 * <p>Linux only: elsewhere {@link #bind} throws {@link UnsupportedOperationException}.
 */
public final class NativeServerSocket implements Closeable {
    private final int fd;
    private final SocketAddress local;
    private final boolean inet;
    private volatile boolean open = true;

    private NativeServerSocket(int fd, SocketAddress local, boolean inet) {
        this.fd = fd;
        this.local = local;
        this.inet = inet;
    }

    /**
     * Binds and listens.
     *
     * @param address an {@link java.net.InetSocketAddress} (port 0 picks a free port; see
     *     {@link #localAddress()}) or a {@link java.net.UnixDomainSocketAddress}
     * @param backlog the kernel's queue of connections not yet accepted
     * @return the listening socket
     * @throws NativeIoException if {@code socket}, {@code bind} or {@code listen} fails, e.g.
     *     {@code EADDRINUSE}, naming the address
     * @throws IOException if the host cannot be resolved
     * @throws UnsupportedOperationException off Linux
     */
    public static NativeServerSocket bind(SocketAddress address, int backlog) throws IOException {
        LibC.checkSupported();
        int family = SocketAddresses.family(address);
        boolean inet = family != SocketAddresses.AF_UNIX;
        int fd = Sys.check(Sys.socket(family), "socket", "family=" + family);
        boolean bound = false;
        try (Arena arena = Arena.ofConfined()) {
            if (inet) {
                Sys.setIntOption(fd, NativeSocket.SOL_SOCKET, NativeSocket.SO_REUSEADDR, 1, "SO_REUSEADDR");
            }
            MemorySegment sockaddr = SocketAddresses.encode(address, arena);
            MemorySegment capture = LibC.captureSegment(arena);
            String detail = "fd=" + fd + " address=" + NativeSocket.describe(address);
            if ((int) LibC.BIND.invokeExact(capture, fd, sockaddr, (int) sockaddr.byteSize()) < 0) {
                throw new NativeIoException("bind", LibC.errno(capture), detail);
            }
            if ((int) LibC.LISTEN.invokeExact(capture, fd, backlog) < 0) {
                throw new NativeIoException("listen", LibC.errno(capture), detail + " backlog=" + backlog);
            }
            SocketAddress local = inet ? localAddress(fd, arena) : address;
            bound = true;
            return new NativeServerSocket(fd, local, inet);
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("bind down-call failed", t);
        } finally {
            if (!bound) {
                Sys.closeQuietly(fd);
            }
        }
    }

    /** As {@link #bind}, the listening descriptor non-blocking, for an event loop's {@link #acceptForLoop()}. */
    static NativeServerSocket bindNonBlocking(SocketAddress address, int backlog) throws IOException {
        NativeServerSocket socket = bind(address, backlog);
        try {
            socket.configureNonBlocking();
            return socket;
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    /**
     * Takes a waiting connection for an event loop, as {@link #acceptNow()} does, with {@code TCP_NODELAY}
     * set over TCP (a connection that refuses it is reset).
     *
     * @return the connection, blocking as accepted, or null if none waits
     * @throws IOException as {@link #acceptNow()}, or if the option cannot be set
     */
    NativeSocket acceptForLoop() throws IOException {
        NativeSocket accepted = acceptNow();
        if (accepted != null && inet) {
            try {
                accepted.setTcpNoDelay(true);
            } catch (IOException | RuntimeException e) {
                accepted.reset();
                throw e;
            }
        }
        return accepted;
    }

    /** {@return the bound address: for TCP with the port the kernel picked} */
    public SocketAddress localAddress() {
        return local;
    }

    /**
     * Waits for a connection.
     *
     * @return the connection, blocking; for TCP it knows the peer's address
     * @throws ClosedChannelException if this socket is (or gets) closed
     * @throws NativeIoException if {@code accept4} fails otherwise
     */
    public NativeSocket accept() throws IOException {
        return accept4(false);
    }

    /** {@return the descriptor} */
    int fd() {
        return fd;
    }

    /** Puts the listening descriptor in non-blocking mode, for {@link #acceptNow()}. */
    void configureNonBlocking() throws IOException {
        Sys.setBlocking(fd, false, "fd=" + fd + " local=" + NativeSocket.describe(local));
    }

    /**
     * Takes a waiting connection from a non-blocking listener.
     *
     * @return the connection, blocking as accepted, or null if none waits
     * @throws ClosedChannelException if this socket is closed
     * @throws NativeIoException if {@code accept4} fails otherwise
     */
    NativeSocket acceptNow() throws IOException {
        return accept4(true);
    }

    /** One accepted connection, waiting for it unless {@code orNull}, which returns null for {@code EAGAIN}. */
    private NativeSocket accept4(boolean orNull) throws IOException {
        if (!open) {
            throw new ClosedChannelException();
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment storage = arena.allocate(SocketAddresses.STORAGE_SIZE);
            MemorySegment length = arena.allocateFrom(ValueLayout.JAVA_INT, SocketAddresses.STORAGE_SIZE);
            MemorySegment capture = LibC.captureSegment(arena);
            while (true) {
                int connection = (int) LibC.ACCEPT4.invokeExact(capture, fd, storage, length, NativeSocket.SOCK_CLOEXEC);
                if (connection >= 0) {
                    SocketAddress remote = inet
                            ? SocketAddresses.decode(storage, length.get(ValueLayout.JAVA_INT, 0)) : null;
                    return new NativeSocket(connection, remote, inet);
                }
                int errno = LibC.errno(capture);
                if (!open) {
                    throw new ClosedChannelException();
                }
                if (orNull && errno == NativeSocket.EAGAIN) {
                    return null;
                }
                if (errno != NativeSocket.EINTR) {
                    throw new NativeIoException("accept4", errno, "fd=" + fd + " local=" + NativeSocket.describe(local));
                }
            }
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("accept4 down-call failed", t);
        }
    }

    /** {@return false once {@link #close()} has begun} */
    boolean isOpen() {
        return open;
    }

    /**
     * Stops listening. A thread blocked in {@link #accept()} is released (Linux wakes it when the socket
     * is shut down; closing alone would not).
     *
     * @throws NativeIoException if {@code close} fails
     */
    @Override
    public void close() throws IOException {
        if (!open) {
            return;
        }
        open = false;
        try {
            Sys.shutdown(fd, NativeSocket.SHUT_RDWR);
        } catch (NativeIoException e) {
            // ENOTCONN where no accept is blocked on some kernels: nothing to release.
        }
        Sys.close(fd);
    }

    @Override
    public String toString() {
        return "NativeServerSocket[fd=" + fd + " local=" + NativeSocket.describe(local) + (open ? "" : " closed") + "]";
    }

    private static SocketAddress localAddress(int fd, Arena arena) throws Throwable {
        MemorySegment storage = arena.allocate(SocketAddresses.STORAGE_SIZE);
        MemorySegment length = arena.allocateFrom(ValueLayout.JAVA_INT, SocketAddresses.STORAGE_SIZE);
        MemorySegment capture = LibC.captureSegment(arena);
        if ((int) LibC.GETSOCKNAME.invokeExact(capture, fd, storage, length) < 0) {
            throw new NativeIoException("getsockname", LibC.errno(capture), "fd=" + fd);
        }
        return SocketAddresses.decode(storage, length.get(ValueLayout.JAVA_INT, 0));
    }
}
