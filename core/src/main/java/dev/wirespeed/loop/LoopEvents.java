package dev.wirespeed.loop;

import java.io.IOException;
import java.net.SocketAddress;

/**
 * What a loop reports beside its work: nothing, or JFR events ({@link JfrLoopEvents}). The loop calls
 * these at a connection's open and close, at a protocol error, at a failed accept and at a failed loop,
 * never per frame.
 */
interface LoopEvents {
    /** Reports nothing: the default. */
    LoopEvents NONE = new LoopEvents() {
    };

    /** Connection {@code id}, to or from {@code remote}, opened on loop {@code loop}. */
    default void opened(long id, SocketAddress remote, int loop) {
    }

    /** Connection {@code id} broke the wire format at stream offset {@code offset}; {@code closed} follows. */
    default void protocolError(long id, long offset, Throwable error) {
    }

    /**
     * Connection {@code id} closed, {@code cause} as {@link ConnectionHandler#onClose} gets it, having carried
     * {@code frames} frames in, {@code bytesRead} bytes in and {@code bytesWritten} out.
     */
    default void closed(long id, Throwable cause, long frames, long bytesRead, long bytesWritten) {
    }

    /**
     * A server's accept on {@code local} failed with {@code cause}: the listener is not watched for {@code pauseNanos}.
     */
    default void acceptFailed(SocketAddress local, IOException cause, long pauseNanos) {
    }

    /** Loop {@code loop} of the server's group failed with {@code failure}: the group's loops end. */
    default void loopFailed(int loop, IOException failure) {
    }

    /** The server stopped: periodic reports end. */
    default void stopped() {
    }
}
