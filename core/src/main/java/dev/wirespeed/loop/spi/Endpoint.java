package dev.wirespeed.loop.spi;

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

    /** Closes at once, discarding unsent bytes, with a reset where the socket supports it; never throws. */
    void reset();
}
