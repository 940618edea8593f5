package dev.wirespeed.frame;

import dev.wirespeed.io.ChannelReader;

/**
 * Constants of the wire format, and the length check every decoder must make before it trusts a
 * length: for decoders of your own that want the same errors as {@link FrameReader}.
 *
 * <p>Thread safety: stateless; safe from any thread.
 */
public final class FrameFormat {
    /** Bytes before the body: 4 of type, 4 of length. */
    public static final int HEADER_LENGTH = 8;

    /** The default largest body, 16 MiB; a body of exactly this length is valid. */
    public static final int DEFAULT_MAX_FRAME_LENGTH = 16 * 1024 * 1024;

    /**
     * The largest {@code maxFrameLength} the library accepts: a frame and its header must fit in
     * one direct buffer (with room for page alignment).
     */
    public static final int MAX_MAX_FRAME_LENGTH = ChannelReader.MAX_CAPACITY - HEADER_LENGTH;

    private FrameFormat() {
    }

    /**
     * Checks a length read from a header.
     *
     * @param length the length field as read
     * @param maxFrameLength the limit, {@code 0 <= maxFrameLength}
     * @param offset the stream offset of the frame's first byte
     * @return {@code length}, if {@code 0 <= length <= maxFrameLength}
     * @throws CorruptFrameException if {@code length < 0}
     * @throws FrameTooLongException if {@code length > maxFrameLength}
     */
    public static int checkLength(int length, int maxFrameLength, long offset)
            throws CorruptFrameException, FrameTooLongException {
        if (length < 0) {
            throw CorruptFrameException.negativeLength(length, offset);
        }
        if (length > maxFrameLength) {
            throw new FrameTooLongException(length, maxFrameLength, offset);
        }
        return length;
    }

    /**
     * Checks a {@code maxFrameLength} setting.
     *
     * @param maxFrameLength the proposed limit
     * @return {@code maxFrameLength}, if {@code 0 <= maxFrameLength <= MAX_MAX_FRAME_LENGTH}
     * @throws IllegalArgumentException otherwise
     */
    public static int checkMaxFrameLength(int maxFrameLength) {
        if (maxFrameLength < 0 || maxFrameLength > MAX_MAX_FRAME_LENGTH) {
            throw new IllegalArgumentException("maxFrameLength=" + maxFrameLength + " min=0 max="
                    + MAX_MAX_FRAME_LENGTH);
        }
        return maxFrameLength;
    }

    /**
     * The type field as the protocol shows it: an unsigned 32-bit number.
     *
     * @param type the raw field
     * @return its unsigned value
     */
    public static long unsignedType(int type) {
        return Integer.toUnsignedLong(type);
    }
}
