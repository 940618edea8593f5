package dev.wirespeed.frame;

import java.io.IOException;
import java.io.Serial;

/**
 * A frame whose length exceeds the reader's {@code maxFrameLength}. Nothing was allocated for it;
 * frames before it were delivered, nothing from it on is.
 */
public final class FrameTooLongException extends IOException {
    @Serial
    private static final long serialVersionUID = 1L;

    /** The offending length field. @serial */
    private final int length;
    /** The limit it exceeded. @serial */
    private final int maxFrameLength;
    /** The stream offset of the offending frame's first byte. @serial */
    private final long offset;

    /**
     * The error for a length above the limit.
     *
     * @param length the length as read
     * @param maxFrameLength the limit it exceeds
     * @param offset the stream offset of the frame's first byte
     */
    public FrameTooLongException(int length, int maxFrameLength, long offset) {
        super("frame too long: length=" + length + " maxFrameLength=" + maxFrameLength + " offset="
                + offset);
        this.length = length;
        this.maxFrameLength = maxFrameLength;
        this.offset = offset;
    }

    /** {@return the length field as read} */
    public int length() {
        return length;
    }

    /** {@return the limit the length exceeded} */
    public int maxFrameLength() {
        return maxFrameLength;
    }

    /** {@return the stream offset of the offending frame's first byte} */
    public long offset() {
        return offset;
    }
}
