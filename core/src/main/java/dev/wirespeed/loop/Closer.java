package dev.wirespeed.loop;

import java.io.IOException;

/**
 * The loop's ways of ending a connection, which the parts that read and write it call when they
 * cannot go on, so that every close takes the same steps (the counts, the socket, the chunks, the
 * events and the handler's {@code onClose}).
 *
 * <p>Thread safety: the loop's thread.
 */
interface Closer {
    /**
     * Closes {@code c} at once, gives back its chunks and tells the handler; nothing if already closed.
     *
     * @param cause what ended it, for the handler; null for a clean close
     * @param reset an RST instead of a FIN where the socket supports it
     */
    void closeNow(Connection c, Throwable cause, boolean reset);

    /**
     * Closes {@code c}, which broke the protocol: no more frames from it, what its handler queued
     * before is sent as far as the socket takes it now, then the close.
     *
     * @param offset the stream offset of the bad frame
     * @param cause the protocol's exception
     */
    void refuse(Connection c, long offset, IOException cause);

    /** Stops reading {@code c}, sends what is queued, then closes it. */
    void closeGracefully(Connection c);

    /**
     * Resets {@code c}, in whose serving {@code e} was thrown (an {@code Error} such as {@code
     * OutOfMemoryError}, or a bug), with {@code e} as the cause its handler gets; the loop goes on. Where
     * closing it fails too, that is added to {@code e} and reported to the thread's uncaught-exception handler.
     */
    void failed(Connection c, Throwable e);

    /** Tells the thread's uncaught-exception handler of {@code e}, which no connection's handler can be told; the loop goes on. */
    static void report(Throwable e) {
        Thread t = Thread.currentThread();
        t.getUncaughtExceptionHandler().uncaughtException(t, e);
    }
}
