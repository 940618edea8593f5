package dev.wirespeed.loop;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * What a {@link FrameServer} or {@link FrameClient} calls for each of its connections, always on the
 * connection's loop thread, never on two threads at once for one connection, in this order: {@link
 * #onOpen} once, then {@link #onFrame} once per frame in stream order (a {@link BlockHandler}: {@link
 * BlockHandler#onFrames} once per block of whole frames), and {@link #onWritable} between them when
 * output that had reached the limit drained, then {@link #onClose} once. A connection that
 * never opens gets {@link #onClose} alone: a client's connect that failed (a {@link
 * java.net.ConnectException} naming the address), or a TLS handshake that failed or timed out.
 *
 * <p>The {@code body} handed to {@code onFrame} is a read-only view of the bytes where they were
 * received (the connection's input buffer, or the transport's own memory where it lends it), not a
 * copy, valid only until {@code onFrame} returns: the loop re-points the same object at the next
 * frame, and the memory goes back to be received into. Copy what must outlive the call; writing the body to
 * a connection ({@link Connection#writeFrame}) copies it, unless it goes back to its own connection as it
 * came, which is sent from where it was received.
 *
 * <p>A handler method that throws closes its connection abortively, with the exception as the
 * {@code cause} of {@code onClose}; the loop and the other connections go on. One handler serves all
 * the server's (or client's) connections, on as many threads as its group has loops: it must be
 * thread-safe, or keep per-connection state in {@link Connection#attach(Object)}.
 */
public interface ConnectionHandler {
    /**
     * A connection was accepted, or a client's connect succeeded, and over TLS its handshake is done; it
     * will be read once this returns.
     *
     * @param connection the new connection
     * @throws IOException to refuse it (closed abortively)
     */
    default void onOpen(Connection connection) throws IOException {
    }

    /**
     * Handles one frame.
     *
     * @param connection where it came from
     * @param type the type field, opaque
     * @param body the body, from its position to its limit; big-endian; read-only; valid until this
     *     method returns
     * @throws IOException to close the connection abortively
     */
    void onFrame(Connection connection, int type, ByteBuffer body) throws IOException;

    /**
     * Output that had reached the output limit has drained to half of it, and the
     * connection is read again: a producer that stopped at {@link Connection#isWritable()} may go on.
     *
     * @param connection the connection
     * @throws IOException to close the connection abortively
     */
    default void onWritable(Connection connection) throws IOException {
    }

    /**
     * The connection is closed and its buffers are back in the pool; it takes no more writes. Or a
     * client's connect failed, and the connection never opened.
     *
     * @param connection the connection
     * @param cause null after a clean close (by either end, or its server's or client's); otherwise why:
     *     a {@link java.net.ConnectException} naming the address for a connect that failed
     *     ({@link ConnectTimeoutException} past the connect timeout); over TLS, a
     *     {@link dev.wirespeed.tls.PeerCertificateException} for a refused certificate, another
     *     {@link javax.net.ssl.SSLException} for a handshake or record that failed or a stream that ended
     *     without close_notify, a {@link java.net.SocketTimeoutException} for a handshake past its timeout; the
     *     protocol's {@link dev.wirespeed.frame.CorruptFrameException},
     *     {@link dev.wirespeed.frame.FrameTooLongException} or
     *     {@link dev.wirespeed.frame.TruncatedFrameException} (with the stream offset), a
     *     {@link java.net.SocketTimeoutException} for an idle timeout, an I/O error, or what a
     *     handler method threw
     */
    default void onClose(Connection connection, Throwable cause) {
    }
}
