package dev.wirespeed.lab.server;

import dev.wirespeed.frame.FrameFormat;
import java.util.SplittableRandom;

/**
 * The body sizes a server sends: one size ({@code 100}) or a range ({@code 10-1000}) drawn from a
 * seeded generator, the same for every connection.
 *
 * @param min the smallest body, {@code 0 <= min <= max}
 * @param max the largest body, at most {@link FrameFormat#DEFAULT_MAX_FRAME_LENGTH}
 */
public record SizeRange(int min, int max) {
    /** The seed of the size generator: every connection gets the same sizes. */
    static final long SEED = 0x5EED_F4A3E5L;

    /** Checks the bounds. */
    public SizeRange {
        if (min < 0 || min > max || max > FrameFormat.DEFAULT_MAX_FRAME_LENGTH) {
            throw new IllegalArgumentException("size min=" + min + " max=" + max + " must satisfy 0 <= min <= max <= "
                    + FrameFormat.DEFAULT_MAX_FRAME_LENGTH);
        }
    }

    /**
     * Parses {@code N} or {@code MIN-MAX}.
     *
     * @param text the option's value
     * @return the range
     */
    public static SizeRange parse(String text) {
        int dash = text.indexOf('-');
        try {
            if (dash < 0) {
                int size = Integer.parseInt(text.strip());
                return new SizeRange(size, size);
            }
            return new SizeRange(Integer.parseInt(text.substring(0, dash).strip()),
                    Integer.parseInt(text.substring(dash + 1).strip()));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("size=" + text + " is not N or MIN-MAX", e);
        }
    }

    /** {@return the range as {@link #parse} reads it: {@code N} or {@code MIN-MAX}} */
    @Override
    public String toString() {
        return min == max ? Integer.toString(min) : min + "-" + max;
    }

    /** {@return a new generator of sizes in this range} */
    public Sizes sizes() {
        return min == max ? () -> min : new Sizes() {
            private final SplittableRandom random = new SplittableRandom(SEED);

            @Override
            public int next() {
                return random.nextInt(min, max + 1);
            }
        };
    }

    /** A stream of body sizes. */
    @FunctionalInterface
    public interface Sizes {
        /** {@return the next body size} */
        int next();
    }
}
