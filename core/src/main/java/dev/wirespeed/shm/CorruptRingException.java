package dev.wirespeed.shm;

import java.io.IOException;
import java.io.Serial;

/**
 * What a ring's reader found where a record should be cannot be one: its writer broke the layout (a
 * bug, another program, or memory written by something else). Frames before it were handed over;
 * nothing from it on is.
 */
public final class CorruptRingException extends IOException {
    @Serial
    private static final long serialVersionUID = 1L;

    /** The ring position (bytes since the ring began) of the record. @serial */
    private final long position;

    CorruptRingException(String message, long position) {
        super(message);
        this.position = position;
    }

    /** {@return the ring position of the record, counted in bytes from the ring's start} */
    public long position() {
        return position;
    }
}
