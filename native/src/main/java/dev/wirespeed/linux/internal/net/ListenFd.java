package dev.wirespeed.linux.internal.net;

import dev.wirespeed.linux.NativeIoException;
import dev.wirespeed.linux.internal.sys.Errno;
import dev.wirespeed.linux.internal.sys.Flags;
import dev.wirespeed.linux.internal.sys.LibC;
import dev.wirespeed.linux.internal.sys.Sys;
import dev.wirespeed.linux.internal.sys.SyscallNumbers;
import dev.wirespeed.linux.internal.sys.Syscalls;
import java.io.Closeable;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.SocketAddress;
import java.nio.channels.ClosedChannelException;

/**
 * A listening stream socket's descriptor and the calls on it: what {@code NativeServerSocket} offers
 * its users, and what the event loops' listeners accept through, without blocking. The contract of
 * each call is {@code NativeServerSocket}'s.
 *
 * <p>Thread safety: {@code accept} from one thread at a time; {@link #close()} from any.
 */
public final class ListenFd implements Closeable {
    private final int fd;
    private final SocketAddress local;
    private final boolean inet;
    private volatile boolean open = true;
    /**
     * What an accept points the kernel at, kept for the listener's life (an accept is made by one thread
     * at a time): the peer's address and its length, an option's value, the errno capture (null where
     * the stub returns it). So an accept allocates only what the connection keeps, and the objects a
     * loop touches at each turn of a connection lie together rather than among an arena's leavings.
     */
    private final MemorySegment peer;
    private final MemorySegment peerLength;
    private final MemorySegment option;
    private final MemorySegment capture = Syscalls.ownCapture();

    private ListenFd(int fd, SocketAddress local, boolean inet) {
        this.fd = fd;
        this.local = local;
        this.inet = inet;
        Arena arena = Arena.ofAuto(); // freed with the listener, never while a call may still use it
        this.peer = arena.allocate(SocketAddresses.STORAGE_SIZE, 8);
        this.peerLength = arena.allocate(ValueLayout.JAVA_INT);
        this.option = arena.allocate(ValueLayout.JAVA_INT);
    }

    /** Binds and listens: {@code NativeServerSocket.bind}'s contract. */
    public static ListenFd bind(SocketAddress given, int backlog) throws IOException {
        LibC.checkSupported();
        SocketAddress address = SocketAddresses.resolved(given); // a host name looked up once
        int family = SocketAddresses.family(address);
        boolean inet = family != SocketAddresses.AF_UNIX;
        int fd = Sys.check(Sys.socket(family), "socket", "family=" + family);
        boolean bound = false;
        try (Arena arena = Arena.ofConfined()) {
            if (inet) {
                Sys.setIntOption(fd, Flags.SOL_SOCKET, Flags.SO_REUSEADDR, 1, "SO_REUSEADDR");
            }
            MemorySegment sockaddr = SocketAddresses.encode(address, arena);
            MemorySegment capture = Syscalls.capture(arena);
            String detail = "fd=" + fd + " address=" + SocketAddresses.describe(address);
            long rc = Syscalls.call(capture, SyscallNumbers.BIND, fd, sockaddr.address(), sockaddr.byteSize(), 0, 0, 0);
            if (rc < 0) {
                throw new NativeIoException("bind", (int) -rc, detail);
            }
            rc = Syscalls.call(capture, SyscallNumbers.LISTEN, fd, backlog, 0, 0, 0, 0);
            if (rc < 0) {
                throw new NativeIoException("listen", (int) -rc, detail + " backlog=" + backlog);
            }
            SocketAddress local = inet ? localAddress(fd, arena) : address;
            bound = true;
            return new ListenFd(fd, local, inet);
        } finally {
            if (!bound) {
                Sys.closeQuietly(fd);
            }
        }
    }

    /** As {@link #bind}, the listening descriptor non-blocking, for an event loop's {@link #acceptForLoop()}. */
    public static ListenFd bindNonBlocking(SocketAddress address, int backlog) throws IOException {
        ListenFd socket = bind(address, backlog);
        try {
            Sys.setBlocking(socket.fd, false, "fd=" + socket.fd + " local=" + SocketAddresses.describe(socket.local));
            return socket;
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    public int fd() {
        return fd;
    }

    public SocketAddress localAddress() {
        return local;
    }

    /** {@return false once {@link #close()} has begun} */
    public boolean isOpen() {
        return open;
    }

    /** Waits for a connection: {@code NativeServerSocket.accept}'s contract. */
    public SocketFd accept() throws IOException {
        return accept4(false, false);
    }

    /**
     * Takes a waiting connection for an event loop, from a non-blocking listener, with {@code TCP_NODELAY}
     * set over TCP (a connection that refuses it is reset). Nothing is allocated but the connection's own
     * objects.
     *
     * @param nonBlocking true for a connection non-blocking from its accept ({@code SOCK_NONBLOCK}), as an
     *     epoll loop reads it; false for one blocking as accepted, as io_uring reads it
     * @return the connection, or null if none waits
     * @throws ClosedChannelException if this socket is closed
     * @throws IOException if {@code accept4} fails otherwise, or the option cannot be set
     */
    public SocketFd acceptForLoop(boolean nonBlocking) throws IOException {
        SocketFd accepted = accept4(true, nonBlocking);
        if (accepted != null && inet) {
            try {
                Sys.setIntOption(accepted.fd(), Flags.IPPROTO_TCP, Flags.TCP_NODELAY, 1, "TCP_NODELAY", option);
            } catch (IOException | RuntimeException e) {
                accepted.reset();
                throw e;
            }
        }
        return accepted;
    }

    /**
     * One accepted connection, waiting for it unless {@code orNull}, which returns null for {@code EAGAIN};
     * non-blocking from the start if {@code nonBlocking}.
     */
    private SocketFd accept4(boolean orNull, boolean nonBlocking) throws IOException {
        if (!open) {
            throw new ClosedChannelException();
        }
        int flags = Flags.SOCK_CLOEXEC | (nonBlocking ? Flags.SOCK_NONBLOCK : 0);
        while (true) {
            peerLength.set(ValueLayout.JAVA_INT, 0, SocketAddresses.STORAGE_SIZE);
            long rc = Syscalls.call(capture, SyscallNumbers.ACCEPT4, fd, peer.address(), peerLength.address(), flags,
                    0, 0);
            if (rc >= 0) {
                int connection = (int) rc;
                SocketAddress remote = inet ? SocketAddresses.decode(peer, peerLength.get(ValueLayout.JAVA_INT, 0)) : null;
                return new SocketFd(connection, remote, inet, !nonBlocking);
            }
            int errno = (int) -rc;
            if (!open) {
                throw new ClosedChannelException();
            }
            if (orNull && errno == Errno.EAGAIN) {
                return null;
            }
            if (errno != Errno.EINTR) {
                throw new NativeIoException("accept4", errno, "fd=" + fd + " local=" + SocketAddresses.describe(local));
            }
        }
    }

    /** Stops listening, releasing a thread blocked in {@link #accept()}: {@code NativeServerSocket.close}'s contract. */
    @Override
    public void close() throws IOException {
        if (!open) {
            return;
        }
        open = false;
        try {
            Sys.shutdown(fd, Flags.SHUT_RDWR);
        } catch (NativeIoException e) {
            // ENOTCONN where no accept is blocked on some kernels: nothing to release.
        }
        Sys.close(fd);
    }

    @Override
    public String toString() {
        return "fd=" + fd + " local=" + SocketAddresses.describe(local) + (open ? "" : " closed");
    }

    private static SocketAddress localAddress(int fd, Arena arena) throws IOException {
        MemorySegment storage = arena.allocate(SocketAddresses.STORAGE_SIZE);
        MemorySegment length = arena.allocateFrom(ValueLayout.JAVA_INT, SocketAddresses.STORAGE_SIZE);
        long rc = Syscalls.call(Syscalls.capture(arena), SyscallNumbers.GETSOCKNAME, fd, storage.address(),
                length.address(), 0, 0, 0);
        if (rc < 0) {
            throw new NativeIoException("getsockname", (int) -rc, "fd=" + fd);
        }
        return SocketAddresses.decode(storage, length.get(ValueLayout.JAVA_INT, 0));
    }
}
