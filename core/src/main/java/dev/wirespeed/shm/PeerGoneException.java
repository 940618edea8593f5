package dev.wirespeed.shm;

import java.io.IOException;
import java.io.Serial;

/**
 * The process at the other end of a {@link SharedRing} is gone without closing its end: it exited or
 * was killed. For a reader, every frame its writer committed was handed over first; a frame the writer
 * had begun and not committed is lost, and nothing of it was handed over.
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

    /** {@return the gone process's id} */
    public long pid() {
        return pid;
    }

    /** {@return the ring position after the last whole frame: where a lost frame would have begun} */
    public long position() {
        return position;
    }
}
