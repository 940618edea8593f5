package dev.wirespeed.lab.shm;

import java.nio.ByteBuffer;

/**
 * The writing end of one direction of a {@link ShmLink}: frames of a type and a body, handed to the
 * reading end in order. Closing the one writer of a {@link Layout#ONE_TO_ONE} link tells the reader that no
 * frame follows: its {@link Inbound#await} then returns -1 once it has read every frame before; closing one
 * of a {@link Layout#MANY_TO_ONE} link's writers tells the reader nothing.
 *
 * <p>Thread safety: one thread at a time.
 */
public interface Outbound extends AutoCloseable {
    /**
     * Writes a frame whose body is {@code body}'s remaining bytes; {@code body}'s position moves to its
     * limit. Where there is no room now (the reader is behind), writes nothing and leaves {@code body}
     * as it was.
     *
     * @param type the frame's type
     * @param body the body, from its position to its limit
     * @return true if written, false if there was no room
     * @throws IllegalArgumentException if the body is longer than the link takes, naming both
     */
    boolean offer(int type, ByteBuffer body);

    /** {@return whether the reading end is gone: closed, or its process ended}; false where the peer cannot tell */
    boolean readerGone();

    /** Marks the end of the frames for the reader (where it is the one writer) and releases this end. */
    @Override
    void close();
}
