package dev.wirespeed.loop.spi;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * An {@link Endpoint} whose received bytes wait in memory of the transport's own (io_uring's provided
 * buffers, say), which the loop parses where they lie instead of copying them into a buffer of its own.
 *
 * <p>The loop takes the oldest held bytes with {@link #lend()}, hands the whole frames among them to its
 * handler as views of that memory, copies the start of a frame that continues past them into a buffer of
 * its own, and gives back what it is done with through {@link #consume(int)}; it does not touch those
 * bytes after. What it leaves (its budget for the turn spent) is lent again the next time. When nothing
 * is lent it asks {@link #ended()} whether the stream has ended or failed; it never calls {@link #read},
 * which a transport still implements, copying, for callers that do not lend.
 *
 * <p>Readiness is as for any endpoint: a poller reports the connection readable while it holds bytes.
 * Closing or resetting the endpoint takes back whatever it holds, lent or not.
 *
 * <p>Thread safety: as {@link Endpoint}, one loop thread.
 */
public interface LendingEndpoint extends Endpoint {
    /**
     * Lends the oldest received bytes not yet consumed.
     *
     * @return a read-only, big-endian buffer whose position to limit holds them, at least one byte; or
     *     null when none are held (then {@link #ended()} tells whether the stream ended or failed). The loop
     *     may move its position and limit; its bytes stay as they are until consumed or the endpoint
     *     closes. A second call before {@link #consume} returns the same bytes.
     */
    ByteBuffer lend();

    /**
     * Gives back the first {@code n} bytes of what the last {@link #lend()} returned: the transport may
     * reuse their memory at once, and the next {@code lend} starts after them.
     *
     * @param n from 0 to the bytes lent
     */
    void consume(int n);

    /**
     * {@return whether the peer's end of stream has been received, every byte before it lent and
     * consumed}: false while bytes are held or none have come yet
     *
     * @throws IOException the receive's failure (a reset connection, say), once every byte received
     *     before it is consumed
     */
    boolean ended() throws IOException;
}
