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

    /** A connection was accepted onto loop {@code loop}. */
    default void opened(Connection c, int loop) {
    }

    /** A connection broke the wire format; {@code closed} follows. */
    default void protocolError(Connection c, long offset, Throwable error) {
    }

    /** A connection closed; {@code cause} as {@link ConnectionHandler#onClose} gets it. */
    default void closed(Connection c, Throwable cause) {
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
