package dev.wirespeed.loop.internal;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * An endpoint that sends from the loop's own output buffers where they lie, instead of copying them:
 * the loop hands a buffer over with {@link #take}, and the endpoint gives it back through
 * {@link Returns} once its bytes are sent, or will never be (a failed send, a closed connection). Until
 * then the buffer's bytes are the endpoint's: the loop neither writes nor reuses them.
 *
 * <p>An endpoint takes buffers up to a limit of its own (always at least one buffer), counting each
 * buffer it holds whole ({@code src}'s capacity), however few of its bytes are to be sent, so that what
 * it holds of the loop's memory is bounded; a peer that does not read so holds back the loop, whose
 * output limit counts both what it keeps and the bytes handed over and not yet given back. It is
 * writable again, as its poller reports, when it has room.
 *
 * <p>Not API: the module exports this package only to the library's native module.
 *
 * <p>Thread safety: the loop's thread; {@link Returns#returned} is called on it too, from within a poll
 * or a close.
 */
public interface TakesOutput {
    /** Gets buffers back. */
    @FunctionalInterface
    interface Returns {
        /**
         * The endpoint is done with a buffer it took.
         *
         * @param token what the buffer was taken with
         */
        void returned(Object token);
    }

    /**
     * Takes {@code src}'s bytes from its position to its limit, to send from {@code memory} without a
     * copy; {@code src}'s position is not moved.
     *
     * @param src a direct buffer holding at least one byte
     * @param memory the native segment over {@code src}'s bytes from its index 0 to at least its limit
     * @param token handed back to {@code returns} when the endpoint is done with the buffer
     * @param returns gets the buffer back
     * @return true if taken; false if the endpoint takes no more now (ask again once it is writable)
     * @throws IOException if an earlier send failed, or the endpoint is closed
     */
    boolean take(ByteBuffer src, MemorySegment memory, Object token, Returns returns) throws IOException;
}
