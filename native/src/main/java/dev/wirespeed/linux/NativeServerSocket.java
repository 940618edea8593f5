package dev.wirespeed.linux;

import dev.wirespeed.linux.internal.net.ListenFd;
import java.io.Closeable;
import java.io.IOException;
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
    private final ListenFd socket;

    private NativeServerSocket(ListenFd socket) {
        this.socket = socket;
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
        return new NativeServerSocket(ListenFd.bind(address, backlog));
    }

    /** {@return the bound address: for TCP with the port the kernel picked} */
    public SocketAddress localAddress() {
        return socket.localAddress();
    }

    /**
     * Waits for a connection.
     *
     * @return the connection, blocking; for TCP it knows the peer's address
     * @throws ClosedChannelException if this socket is (or gets) closed
     * @throws NativeIoException if {@code accept4} fails otherwise
     */
    public NativeSocket accept() throws IOException {
        return new NativeSocket(socket.accept());
    }

    /**
     * Stops listening. A thread blocked in {@link #accept()} is released (Linux wakes it when the socket
     * is shut down; closing alone would not).
     *
     * @throws NativeIoException if {@code close} fails
     */
    @Override
    public void close() throws IOException {
        socket.close();
    }

    @Override
    public String toString() {
        return "NativeServerSocket[" + socket + "]";
    }
}
