package dev.wirespeed.loop.spi;

import java.io.Closeable;
import java.io.IOException;
import java.net.SocketAddress;

/**
 * A listening socket of a {@link LoopTransport}, non-blocking.
 *
 * <p>Thread safety: {@link #accept()} on one thread; {@link #close()} from any.
 */
public interface Listener extends Closeable {
    /** {@return the address listened on, the port resolved} */
    SocketAddress localAddress();

    /**
     * Takes a waiting connection, without blocking.
     *
     * @return the connection, non-blocking and, over TCP, with {@code TCP_NODELAY}; null if none waits
     * @throws IOException if accepting fails (out of descriptors, say); the connection, if any, stays
     *     in the backlog, and the loop stops watching the listener for a while ({@link
     *     Poller#interest(Listener, int)})
     */
    Endpoint accept() throws IOException;
}
