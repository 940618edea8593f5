package dev.wirespeed.loop;

/**
 * The thread a connection belongs to: where its handler runs, and the only one that may touch it.
 *
 * <p>Thread safety: {@link #execute} from any thread; {@link #checkThread} from any, to be refused off
 * the loop's.
 */
interface LoopThread {
    /**
     * Runs {@code task} on the loop's thread at its next turn, after the tasks given before it.
     *
     * @throws java.util.concurrent.RejectedExecutionException if the server is closed
     */
    void execute(Runnable task);

    /**
     * Refuses a call off the loop's thread.
     *
     * @param c the connection called
     * @throws IllegalStateException if the calling thread is not the loop's, naming both threads and {@code c}
     */
    void checkThread(Connection c);

    /** On the loop's thread: reads {@code c} at the next turn if its TLS holds input the poller will not announce. */
    void readLaterIfHeld(Connection c);
}
