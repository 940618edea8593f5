package dev.wirespeed.loop.spi;

import java.io.IOException;
import java.net.SocketAddress;
import java.nio.channels.ByteChannel;

/**
 * A connected socket of a {@link LoopTransport}, non-blocking: {@link #read} returns 0 when nothing
 * is there and -1 at the end of the stream, {@link #write} returns 0 when the socket takes nothing.
 *
 * <p>Thread safety: used by one loop thread.
 */
public interface Endpoint extends ByteChannel {
    /** {@return the peer's address, or null where the socket has none to tell (a Unix socket's peer)} */
    SocketAddress remoteAddress();

    /**
     * Ends the output once every byte written so far has been sent (a FIN), keeping the input open: the
     * loop then reads and drops what the peer still sends until it closes, so that closing does not
     * find unread input, which makes the socket reset the peer. An endpoint that cannot throws
     * {@link UnsupportedOperationException} (the default), and the loop closes it at once.
     *
     * @throws IOException if the socket refuses
     * @throws UnsupportedOperationException if this endpoint cannot shut its output alone
     */
    default void shutdownOutput() throws IOException {
        throw new UnsupportedOperationException("shutdownOutput: " + this);
    }

    /**
     * Ends a connect that {@link LoopTransport#connect} began, once its poller reported it: the socket's
     * outcome, on the loop's thread. An endpoint that was accepted, or has connected, returns true.
     *
     * @return true if connected: the endpoint reads and writes from now on; false if the connect is still
     *     under way (a readiness that was not its end), and the poller reports it again
     * @throws IOException the connect's failure (refused, unreachable, reset), naming the address
     */
    default boolean finishConnect() throws IOException {
        return true;
    }

    /** Closes at once, discarding unsent bytes, with a reset where the socket supports it; never throws. */
    void reset();
}
