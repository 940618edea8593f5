package dev.wirespeed.frame;

import java.io.IOException;
import java.io.Serial;

/**
 * A frame whose header cannot be valid: a negative length. Frames before it were delivered; nothing
 * from it on is.
 */
public final class CorruptFrameException extends IOException {
    @Serial
    private static final long serialVersionUID = 1L;

    /** The offending length field. @serial */
    private final int length;
    /** The stream offset of the offending frame's first byte. @serial */
    private final long offset;

    private CorruptFrameException(String message, int length, long offset) {
        super(message);
        this.length = length;
        this.offset = offset;
    }

    /**
     * The error for a negative length field.
     *
     * @param length the length as read, negative
     * @param offset the stream offset of the frame's first byte
     * @return the exception, not thrown
     */
    public static CorruptFrameException negativeLength(int length, long offset) {
        return new CorruptFrameException(
                "corrupt frame: negative length: length=" + length + " offset=" + offset, length, offset);
    }

    /** {@return the length field as read} */
    public int length() {
        return length;
    }

    /** {@return the stream offset of the offending frame's first byte} */
    public long offset() {
        return offset;
    }
}
