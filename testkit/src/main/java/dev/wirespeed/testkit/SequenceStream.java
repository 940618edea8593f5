package dev.wirespeed.testkit;

/**
 * The sequence stream of the wire protocol: a deterministic stream of frames that a receiver can
 * check for loss, duplication, reordering and corruption knowing only that it starts at frame 0.
 *
 * <p>Frame {@code i} ({@code i = 0, 1, 2, ...}) has type {@code i mod 2^32}, any valid length, and
 * body byte {@code k} equal to {@code (i + k) mod 256}. Because a body depends on {@code i} only
 * through {@code i mod 256}, every body of length {@code n} is a slice of one {@link #pattern(int)}
 * array: {@code pattern[(i mod 256) .. (i mod 256) + n)}. Writers send slices of it; the
 * {@link SequenceVerifier} compares against it.
 *
 * <p>Thread safety: stateless; safe from any thread.
 */
public final class SequenceStream {
    /** Bodies repeat with this period in the frame index. */
    public static final int PERIOD = 256;

    private SequenceStream() {
    }

    /**
     * The type of frame {@code frame}.
     *
     * @param frame the frame index, from 0
     * @return {@code frame mod 2^32}
     */
    public static int type(long frame) {
        return (int) frame;
    }

    /**
     * Byte {@code k} of the body of frame {@code frame}.
     *
     * @param frame the frame index, from 0
     * @param k the byte index in the body, from 0
     * @return {@code (frame + k) mod 256}
     */
    public static byte bodyByte(long frame, int k) {
        return (byte) (frame + k);
    }

    /**
     * The offset in {@link #pattern(int)} where the body of frame {@code frame} starts.
     *
     * @param frame the frame index
     * @return {@code frame mod 256}
     */
    public static int patternOffset(long frame) {
        return (int) (frame & (PERIOD - 1));
    }

    /**
     * An array holding every body up to {@code maxLength} bytes: element {@code j} is
     * {@code j mod 256}, and it is {@code 256 + maxLength} long.
     *
     * @param maxLength the longest body it must hold, {@code 0 <= maxLength <= Integer.MAX_VALUE - 264}
     * @return a new array
     */
    public static byte[] pattern(int maxLength) {
        if (maxLength < 0 || maxLength > Integer.MAX_VALUE - PERIOD - 8) {
            throw new IllegalArgumentException("maxLength=" + maxLength + " min=0 max="
                    + (Integer.MAX_VALUE - PERIOD - 8));
        }
        byte[] pattern = new byte[PERIOD + maxLength];
        for (int j = 0; j < pattern.length; j++) {
            pattern[j] = (byte) j;
        }
        return pattern;
    }
}
