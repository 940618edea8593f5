package dev.wirespeed.lab.shm;

/**
 * One process's side of a peer's shared memory under one name: the directions it writes and reads,
 * each by a name of its own (the empty name for a stream's one direction; {@code ping} and {@code pong}
 * for a ping-pong's two). The side that owns the link makes what every side maps (the ring files, or
 * Aeron's embedded media driver) and removes it when closed; the others map what the owner made,
 * waiting a while for it to be there. The owner is the writer's side where one writes ({@link
 * Layout#ONE_TO_ONE}), the reader's where many do ({@link Layout#MANY_TO_ONE}).
 *
 * <p>Thread safety: one thread at a time; each end it hands out to one thread.
 */
public interface ShmLink extends AutoCloseable {
    /**
     * {@return the writing end of the direction {@code name}}, one per name and process
     *
     * @param name the direction
     * @throws java.io.IOException if what it needs cannot be made or mapped, naming it
     */
    Outbound outbound(String name) throws java.io.IOException;

    /**
     * {@return the reading end of the direction {@code name}}, one per name and process
     *
     * @param name the direction
     * @throws java.io.IOException if what it needs cannot be made or mapped, naming it
     */
    Inbound inbound(String name) throws java.io.IOException;

    /** {@return the longest body a frame may have}: of the ends opened so far, or of the capacity asked for */
    int maxFrameLength();

    /** Closes every end it handed out, then what it made, if it owns the link. */
    @Override
    void close();
}
