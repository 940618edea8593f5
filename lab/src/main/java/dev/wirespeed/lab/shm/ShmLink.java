package dev.wirespeed.lab.shm;

/**
 * One process's side of a peer's shared memory under one name: the directions it writes and reads,
 * each by a name of its own (the empty name for a stream's one direction; {@code ping} and {@code pong}
 * for a ping-pong's two). The side that owns the link makes what both sides map (the ring files, or
 * Aeron's embedded media driver) and removes it when closed; the other maps what the owner made,
 * waiting a while for it to be there.
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
