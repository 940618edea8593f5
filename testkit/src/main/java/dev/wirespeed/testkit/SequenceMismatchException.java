package dev.wirespeed.testkit;

import java.io.IOException;
import java.io.Serial;

/**
 * A frame that is not the one the {@link SequenceStream} has at its place: a wrong type (a frame lost,
 * duplicated or reordered) or a wrong body byte (corruption).
 */
public final class SequenceMismatchException extends IOException {
    @Serial
    private static final long serialVersionUID = 1L;

    /** The index of the offending frame, counted from 0. @serial */
    private final long frame;
    /** The body byte index that differs, or -1 when the type differs. @serial */
    private final int byteIndex;
    /** The stream offset of the first differing byte. @serial */
    private final long offset;

    SequenceMismatchException(String message, long frame, int byteIndex, long offset) {
        super(message);
        this.frame = frame;
        this.byteIndex = byteIndex;
        this.offset = offset;
    }

    /** {@return the index of the offending frame, from 0} */
    public long frame() {
        return frame;
    }

    /** {@return the body byte that differs, or -1 if the type differs} */
    public int byteIndex() {
        return byteIndex;
    }

    /** {@return the stream offset of the first differing byte} */
    public long offset() {
        return offset;
    }
}
