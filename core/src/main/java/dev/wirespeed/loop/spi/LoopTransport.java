package dev.wirespeed.loop.spi;

import java.io.IOException;
import java.net.SocketAddress;

/**
 * How a {@link dev.wirespeed.loop.FrameServer}'s loops reach sockets: listening, accepting, and
 * waiting for readiness. The core's own is the JDK's channels and {@code Selector}; a platform module
 * may offer its own (the native module's {@code epoll} through FFM), given to
 * {@link dev.wirespeed.loop.FrameServer.Builder#transport(LoopTransport)}.
 *
 * <p>Thread safety: {@link #openPoller()} and {@link #listen} may be called from any thread; what
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
}
