package dev.wirespeed.shm;

import java.io.IOException;
import java.io.Serial;

/**
 * The process at the other end of a {@link SharedRing} is gone without closing its end: it exited or
 * was killed. For a reader, every frame its writer committed was handed over first; a frame the writer
 * had begun and not committed is lost, and nothing of it was handed over.
 *
 * <p>For the reader of a {@link ManyToOneRing}: a claim that stopped it was lost, its writer's process
 * gone, or its writer's end closed with the claim open. Every frame claimed before it was handed over;
 * the reader passed over the claim's bytes, and its next call goes on with the frames claimed after it.
 */
public final class PeerGoneException extends IOException {
    @Serial
    private static final long serialVersionUID = 1L;

    /** The gone process's id. @serial */
    private final long pid;
    /** The ring position after the last whole frame. @serial */
    private final long position;

    PeerGoneException(String message, long pid, long position) {
        super(message);
        this.pid = pid;
        this.position = position;
    }

    /** {@return the gone process's id, or -1 for a {@link ManyToOneRing} writer whose end was closed} */
    public long pid() {
        return pid;
    }

    /**
     * {@return the ring position after the last whole frame: where a lost frame would have begun (in a
     * {@link ManyToOneRing}, where the lost claim began)}
     */
    public long position() {
        return position;
    }
}
