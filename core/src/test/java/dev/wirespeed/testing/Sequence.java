package dev.wirespeed.testing;

import java.nio.ByteBuffer;

/**
 * The wire protocol's sequence stream for core's own tests, written from the protocol's words and
 * independent of the testkit module (which depends on core): frame {@code i} has type {@code i} and
 * body byte {@code k} equal to {@code (i + k) mod 256}.
 */
public final class Sequence {
    private Sequence() {
    }

    /** {@return an array whose slice at {@link #offset(long) offset(i)} of any length up to {@code maxLength} is frame i's body} */
    public static byte[] pattern(int maxLength) {
        byte[] pattern = new byte[maxLength + 256];
        for (int k = 0; k < pattern.length; k++) {
            pattern[k] = (byte) k;
        }
        return pattern;
    }

    /** {@return where frame {@code frame}'s body starts in a {@link #pattern}} */
    public static int offset(long frame) {
        return (int) (frame & 0xFF);
    }

    /** Checks frames in order against the sequence stream, failing on the first byte that differs. */
    public static final class Checker {
        private long frames;

        /** Checks the next frame; {@code body}'s position is left where it was. */
        public void check(int type, ByteBuffer body) {
            if (type != (int) frames) {
                throw new AssertionError("frame " + frames + ": type=" + type + " expected=" + (int) frames);
            }
            for (int k = 0; k < body.remaining(); k++) {
                byte expected = (byte) (frames + k);
                byte actual = body.get(body.position() + k);
                if (actual != expected) {
                    throw new AssertionError("frame " + frames + " byte " + k + ": actual=" + actual + " expected=" + expected);
                }
            }
            frames++;
        }

        /** {@return frames checked so far} */
        public long frames() {
            return frames;
        }
    }
}
