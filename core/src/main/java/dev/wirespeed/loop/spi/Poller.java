package dev.wirespeed.loop.spi;

import java.io.Closeable;
import java.io.IOException;

/**
 * Waits for a loop's sockets to be ready, and says which: the loop's one blocking call.
 *
 * <p>Each registered socket carries an attachment, handed back with its ready operations. A socket
 * is registered once and its interest changed as often as needed; it is deregistered before it is
 * closed.
 *
 * <p>Thread safety: confined to its loop's thread, but for {@link #wakeup()}, which any thread may call.
 */
public interface Poller extends Closeable {
    /** Interest in, or readiness for, reading (or accepting, for a listener). */
    int READ = 1;
    /** Interest in, or readiness for, writing. */
    int WRITE = 2;
    /**
     * Interest in the end of a connect that {@link LoopTransport#connect} began, whichever way it ended;
     * or readiness for it. Given alone, at registration; the loop then asks {@link Endpoint#finishConnect()}
     * and, once connected, changes the interest to {@link #READ} and/or {@link #WRITE}. A poller may
     * report it as {@link #WRITE} (the way a socket shows a connect's end) where it cannot tell the two
     * apart: the loop treats any readiness of a connecting endpoint as the connect's.
     */
    int CONNECT = 4;

    /** Receives the ready sockets of one {@link #poll}. */
    @FunctionalInterface
    interface Ready {
        /**
         * One socket is ready.
         *
         * @param attachment what it was registered with
         * @param ops {@link #READ} and/or {@link #WRITE}, or {@link #CONNECT}; an error or hang-up shows
     *     as each of its interests
         */
        void ready(Object attachment, int ops);
    }

    /**
     * Registers a connection.
     *
     * @param endpoint a connection of this poller's transport
     * @param attachment handed back with its readiness
     * @param ops the interest: {@link #READ} and/or {@link #WRITE}; or {@link #CONNECT} alone for an
     *     endpoint from {@link LoopTransport#connect} whose connect has not been finished, which the poller
     *     reports once the connect has ended (at its next poll where it ended already)
     * @throws IOException if the platform refuses
     */
    void register(Endpoint endpoint, Object attachment, int ops) throws IOException;

    /**
     * Registers a listener, for {@link #READ} (a connection waits).
     *
     * @param listener a listener of this poller's transport
     * @param attachment handed back with its readiness
     * @throws IOException if the platform refuses
     */
    void register(Listener listener, Object attachment) throws IOException;

    /**
     * Changes a connection's interest.
     *
     * @param endpoint a registered connection
     * @param ops the new interest, {@link #READ} and/or {@link #WRITE}, or 0
     * @throws IOException if the platform refuses
     */
    void interest(Endpoint endpoint, int ops) throws IOException;

    /**
     * Stops or resumes watching a listener. The loop stops while accepting fails (out of descriptors,
     * say): the connection that failed stays in the backlog, and a poller that reports the listener ready
     * again at once would have the loop spin until a descriptor comes free.
     *
     * @param listener a registered listener; one closed since is left alone
     * @param ops {@link #READ} to watch it again, or 0 to stop watching it: no readiness of it is handed
     *     over until it is watched again
     * @throws IOException if the platform refuses
     */
    void interest(Listener listener, int ops) throws IOException;

    /**
     * Forgets a connection, before it is closed.
     *
     * @param endpoint a registered connection
     */
    void deregister(Endpoint endpoint);

    /**
     * Waits until a registered socket is ready, or the time passes, or {@link #wakeup()} is called,
     * and hands each ready one to {@code ready}.
     *
     * @param timeoutMillis 0 to return at once, -1 to wait without a limit, else the most to wait
     * @param ready receives each ready socket; it may register, change and deregister sockets
     * @return the number of ready sockets handed over
     * @throws IOException if the platform fails
     */
    int poll(long timeoutMillis, Ready ready) throws IOException;

    /** Makes the current or next {@link #poll} return at once; from any thread. */
    void wakeup();
}
