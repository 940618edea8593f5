package dev.wirespeed.lab.shm;

import dev.wirespeed.frame.FrameHandler;
import java.io.IOException;
import java.time.Duration;

/**
 * The reading end of one direction of a {@link ShmLink}: hands each frame, in order, to a {@link
 * FrameHandler}, its body a read-only view of shared memory that is valid only during {@code onFrame}.
 *
 * <p>Thread safety: one thread at a time.
 */
public interface Inbound extends AutoCloseable {
    /**
     * Hands over the frames there are, {@code limit} at most, without waiting.
     *
     * @param handler given each frame
     * @param limit the most frames, at least 1
     * @return the frames handed over, 0 if none waited; -1 once the writer closed its end and every
     *     frame before was handed over
     * @throws IOException what the handler threw, or a broken ring
     */
    int poll(FrameHandler handler, int limit) throws IOException;

    /**
     * Hands over frames as {@link #poll} does, waiting for one as this end's {@link Sleep} says, until
     * {@code timeout} has passed.
     *
     * @param handler given each frame
     * @param limit the most frames, at least 1
     * @param timeout the longest wait
     * @return as {@link #poll}: frames, 0 if none came in time, -1 at the end
     * @throws IOException what the handler threw, or a broken ring
     */
    int await(FrameHandler handler, int limit, Duration timeout) throws IOException;

    /** Releases this end. */
    @Override
    void close();
}
