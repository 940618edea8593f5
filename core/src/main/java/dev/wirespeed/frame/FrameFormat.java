package dev.wirespeed.frame;

import dev.wirespeed.io.ChannelReader;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The wire format: its constants, its header codec, and the length check every decoder must make
 * before it trusts a length. For decoders and encoders of your own that want the same layout and the
 * same errors as {@link FrameReader} and {@link FrameWriter}; the library's own readers, writers and
 * event loop use nothing else.
 *
 * <pre>
 * +--------+--------+----------------+
 * |  type  | length |      body      |
 * | 4 B BE | 4 B BE |  length bytes  |
 * +--------+--------+----------------+
 * </pre>
 *
 * <p>A header read as one big-endian {@code long} holds the type in its high 32 bits and the length in
 * its low 32: {@link #header(int, int)}, {@link #type(long)} and {@link #length(long)} convert.
 *
 * <p>Thread safety: stateless; safe from any thread.
 */
public final class FrameFormat {
    /** Bytes before the body: 4 of type, 4 of length. */
    public static final int HEADER_LENGTH = 8;

    /** Where the length field starts in the header. */
    public static final int LENGTH_OFFSET = 4;

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
     * {@return a frame's header as one {@code long}}: written big-endian, the type field then the length field
     *
     * @param type the type field
     * @param length the length field
     */
    public static long header(int type, int length) {
        return (long) type << 32 | (length & 0xFFFF_FFFFL);
    }

    /**
     * {@return the type field of a header read as one big-endian {@code long}}
     *
     * @param header the header
     */
    public static int type(long header) {
        return (int) (header >>> 32);
    }

    /**
     * {@return the length field of a header read as one big-endian {@code long}}, unchecked
     *
     * @param header the header
     */
    public static int length(long header) {
        return (int) header;
    }

    /**
     * {@return the length field of the header at {@code index} of a big-endian buffer}, unchecked
     *
     * @param buffer the bytes, big-endian
     * @param index where the header starts; its length field must lie within the limit
     * @throws IndexOutOfBoundsException if it does not
     */
    public static int length(ByteBuffer buffer, int index) {
        return buffer.getInt(index + LENGTH_OFFSET);
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
     * Checks that {@code frames} holds whole frames from its position to its limit, as they are on the
     * wire: each an 8-byte header whole, a length within {@code 0..maxFrameLength}, a body within the
     * limit. The fields are read big-endian whatever the buffer's byte order; neither its position nor
     * its limit moves.
     *
     * @param frames the bytes
     * @param maxFrameLength the largest body accepted
     * @return how many frames there are; 0 where the position is the limit
     * @throws IllegalArgumentException at the first frame that is not whole or is too long, naming its
     *     index, its length, the limit and the position
     */
    public static int checkWholeFrames(ByteBuffer frames, int maxFrameLength) {
        int from = frames.position();
        int to = frames.limit();
        boolean bigEndian = frames.order() == ByteOrder.BIG_ENDIAN;
        int count = 0;
        for (int at = from; at < to; count++) {
            if (to - at < HEADER_LENGTH) {
                throw new IllegalArgumentException("not whole frames: a header of " + HEADER_LENGTH + " bytes at index "
                        + at + " has " + (to - at) + " before the limit=" + to + " (position=" + from + ")");
            }
            int field = frames.getInt(at + LENGTH_OFFSET);
            int length = bigEndian ? field : Integer.reverseBytes(field);
            if (length < 0 || length > maxFrameLength) {
                throw new IllegalArgumentException("not whole frames: length=" + length + " at index " + at
                        + " outside 0..maxFrameLength=" + maxFrameLength + " (position=" + from + " limit=" + to + ")");
            }
            if (to - at - HEADER_LENGTH < length) {
                throw new IllegalArgumentException("not whole frames: the body of length=" + length + " at index "
                        + (at + HEADER_LENGTH) + " runs past the limit=" + to + " (position=" + from + ")");
            }
            at += HEADER_LENGTH + length;
        }
        return count;
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
