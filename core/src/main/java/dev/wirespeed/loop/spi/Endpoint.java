package dev.wirespeed.loop.spi;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
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
     * Reads as {@link #read(ByteBuffer)} does, told where {@code dst}'s memory lies: an endpoint that
     * reads by address takes it from {@code memory} rather than look each buffer's address up, which
     * the supported API does only by making objects. The default ignores it.
     *
     * @param dst a direct buffer; its position advances by the count
     * @param memory the native segment over {@code dst}'s bytes from its index 0 to at least its limit
     * @return as {@link #read(ByteBuffer)}
     * @throws IOException as {@link #read(ByteBuffer)}
     */
    default int read(ByteBuffer dst, MemorySegment memory) throws IOException {
        return read(dst);
    }

    /**
     * Writes as {@link #write(ByteBuffer)} does, told where {@code src}'s memory lies, as for
     * {@link #read(ByteBuffer, MemorySegment)}. The default ignores it.
     *
     * @param src a direct buffer; its position advances by the count
     * @param memory the native segment over {@code src}'s bytes from its index 0 to at least its limit
     * @return as {@link #write(ByteBuffer)}
     * @throws IOException as {@link #write(ByteBuffer)}
     */
    default int write(ByteBuffer src, MemorySegment memory) throws IOException {
        return write(src);
    }

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

    /** Closes at once, discarding unsent bytes, with a reset where the socket supports it; never throws. */
    void reset();
}
