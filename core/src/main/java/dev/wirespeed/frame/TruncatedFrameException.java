package dev.wirespeed.frame;

import java.io.EOFException;
import java.io.Serial;

/**
 * The stream ended inside a frame: inside its 8-byte header, or inside its body. A stream that ends
 * at a frame boundary is not an error. Frames before the truncated one were delivered.
 */
public final class TruncatedFrameException extends EOFException {
    @Serial
    private static final long serialVersionUID = 1L;

    /** Bytes of the frame present (header bytes, or body bytes when the header was whole). @serial */
    private final int present;
    /** Bytes that were due: 8 for the header, the length for the body. @serial */
    private final int expected;
    /** True when the stream ended inside the header. @serial */
    private final boolean inHeader;
    /** The stream offset of the truncated frame's first byte. @serial */
    private final long offset;

    private TruncatedFrameException(String message, int present, int expected, boolean inHeader,
            long offset) {
        super(message);
        this.present = present;
        this.expected = expected;
        this.inHeader = inHeader;
        this.offset = offset;
    }

    /**
     * The stream ended after {@code present} of the 8 header bytes.
     *
     * @param present header bytes present, {@code 1 <= present < 8}
     * @param offset the stream offset of the frame's first byte
     * @return the exception, not thrown
     */
    public static TruncatedFrameException inHeader(int present, long offset) {
        return new TruncatedFrameException("truncated frame: header bytes present=" + present + " of "
                + FrameFormat.HEADER_LENGTH + " offset=" + offset, present, FrameFormat.HEADER_LENGTH,
                true, offset);
    }

    /**
     * The stream ended after {@code present} of the {@code length} body bytes.
     *
     * @param present body bytes present, {@code 0 <= present < length}
     * @param length the frame's length field
     * @param offset the stream offset of the frame's first byte
     * @return the exception, not thrown
     */
    public static TruncatedFrameException inBody(int present, int length, long offset) {
        return new TruncatedFrameException("truncated frame: body bytes present=" + present + " of length="
                + length + " offset=" + offset, present, length, false, offset);
    }

    /** {@return the bytes of the header (if {@link #inHeader()}) or of the body that arrived} */
    public int present() {
        return present;
    }

    /** {@return bytes that were due: 8 for a header, the length for a body} */
    public int expected() {
        return expected;
    }

    /** {@return whether the stream ended inside the header} */
    public boolean inHeader() {
        return inHeader;
    }

    /** {@return the stream offset of the truncated frame's first byte} */
    public long offset() {
        return offset;
    }
}
