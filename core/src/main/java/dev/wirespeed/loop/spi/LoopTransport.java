package dev.wirespeed.loop.spi;

import java.io.IOException;
import java.net.SocketAddress;

/**
 * How the loops of a {@link dev.wirespeed.loop.LoopGroup} reach sockets: listening, accepting,
 * connecting, and waiting for readiness. The core's own is the JDK's channels and {@code Selector}; a platform module
 * may offer its own (the native module's {@code epoll} through FFM), given to
 * {@link dev.wirespeed.loop.LoopGroup.Builder#transport(LoopTransport)}.
 *
 * <p>Thread safety: {@link #openPoller()}, {@link #listen} and {@link #connect} may be called from any thread; what
 * they return is confined to the loop that uses it, but for {@link Poller#wakeup()}.
 */
public interface LoopTransport {
    /** {@return a short name for messages and tables, e.g. {@code selector} or {@code epoll}} */
    String name();

    /**
     * {@return a new poller, for one loop}
     *
     * @throws IOException if the platform refuses one
     */
    Poller openPoller() throws IOException;

    /**
     * Listens on {@code address}.
     *
     * @param address an {@link java.net.InetSocketAddress} (port 0 for any free one) or a
     *     {@link java.net.UnixDomainSocketAddress}
     * @param backlog the listen backlog, at least 1
     * @return the listening socket, non-blocking
     * @throws IOException if it cannot be bound
     */
    Listener listen(SocketAddress address, int backlog) throws IOException;

    /**
     * Opens a socket and begins connecting it to {@code address}, without blocking. The loop registers
     * the endpoint with its poller for {@link Poller#CONNECT}, calls {@link Endpoint#finishConnect()} when
     * the poller reports it, and resets it if the connect takes longer than the caller allows. A
     * transport that cannot connect keeps this default, which refuses.
     *
     * @param address an {@link java.net.InetSocketAddress}, resolved, or a
     *     {@link java.net.UnixDomainSocketAddress}
     * @return the connecting socket, non-blocking and, over TCP, with {@code TCP_NODELAY}
     * @throws IOException if no socket can be made, or the connect fails at once (a Unix socket's
     *     path that does not exist, say), with a message naming {@code address}
     * @throws UnsupportedOperationException if this transport does not connect
     */
    default Endpoint connect(SocketAddress address) throws IOException {
        throw new UnsupportedOperationException("the " + name() + " transport does not connect: address=" + address);
    }
}
