package dev.wirespeed.testkit;

import dev.wirespeed.frame.FrameFormat;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Checks that frames, handed to it in order, are the {@link SequenceStream} from frame 0: each type is
 * the frame's index and each body the pattern's slice. Bodies are compared with vectorized
 * mismatch, not byte by byte.
 *
 * <p>It assumes the frames it is given follow one another in the stream (it counts offsets from
 * their lengths), so it names the stream offset of a bad byte exactly.
 *
 * <p>Thread safety: not thread-safe; one thread verifies a given stream.
 */
public final class SequenceVerifier {
    private byte[] pattern = SequenceStream.pattern(4096);
    private ByteBuffer patternView = ByteBuffer.wrap(pattern);
    /** Index of the next expected frame; {@code >= 0}. */
    private long next;
    /** Stream offset of the next expected frame; {@code >= 0}. */
    private long offset;

    /** A verifier expecting frame 0 at offset 0. */
    public SequenceVerifier() {
    }

    /**
     * Checks the next frame, given as a buffer's bytes from position to limit (left unchanged).
     *
     * @param type the frame's type
     * @param body the frame's body
     * @throws SequenceMismatchException if it is not the expected frame
     */
    public void verify(int type, ByteBuffer body) throws SequenceMismatchException {
        int length = body.remaining();
        checkType(type);
        int start = patternStart(length);
        ByteBuffer expected = patternView.limit(start + length).position(start);
        int at = body.mismatch(expected);
        if (at >= 0) {
            throw wrongByte(at, body.get(body.position() + at));
        }
        advance(length);
    }

    /**
     * Checks the next frame, given as {@code length} bytes of an array from {@code off}.
     *
     * @param type the frame's type
     * @param body the array
     * @param off the body's first byte
     * @param length the body's length
     * @throws SequenceMismatchException if it is not the expected frame
     */
    public void verify(int type, byte[] body, int off, int length) throws SequenceMismatchException {
        checkType(type);
        int start = patternStart(length);
        int at = Arrays.mismatch(body, off, off + length, pattern, start, start + length);
        if (at >= 0) {
            throw wrongByte(at, body[off + at]);
        }
        advance(length);
    }

    /** {@return frames verified so far} */
    public long framesVerified() {
        return next;
    }

    /** {@return bytes of verified frames, headers included} */
    public long bytesVerified() {
        return offset;
    }

    private void checkType(int type) throws SequenceMismatchException {
        int expected = SequenceStream.type(next);
        if (type != expected) {
            throw new SequenceMismatchException("frame " + next + " is not the expected frame: type="
                    + Integer.toUnsignedString(type) + " expected=" + Integer.toUnsignedString(expected)
                    + " offset=" + offset, next, -1, offset);
        }
    }

    private int patternStart(int length) {
        if (SequenceStream.PERIOD + length > pattern.length) {
            int size = (int) Math.min(Integer.MAX_VALUE - SequenceStream.PERIOD - 8,
                    Math.max(length, 2L * pattern.length));
            pattern = SequenceStream.pattern(size);
            patternView = ByteBuffer.wrap(pattern);
        }
        return SequenceStream.patternOffset(next);
    }

    private SequenceMismatchException wrongByte(int at, byte actual) {
        long byteOffset = offset + FrameFormat.HEADER_LENGTH + at;
        return new SequenceMismatchException("frame " + next + " byte " + at + " is corrupt: actual="
                + (actual & 0xFF) + " expected=" + (SequenceStream.bodyByte(next, at) & 0xFF)
                + " offset=" + byteOffset, next, at, byteOffset);
    }

    private void advance(int length) {
        next++;
        offset += FrameFormat.HEADER_LENGTH + (long) length;
    }
}
