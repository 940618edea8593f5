package dev.wirespeed.lab.client;

/**
 * How a client run is cut into rounds, each printed as one line; the first round is the warm-up,
 * which the lab leaves out.
 */
public sealed interface Rounds {
    /** {@return rounds before the client stops, or 0 to read until the stream ends} */
    long count();

    /**
     * Rounds of a fixed number of frames, as the articles measured.
     *
     * @param frames frames per round, at least 1
     * @param count rounds before stopping, or 0 for no limit
     */
    record ByFrames(long frames, long count) implements Rounds {
        /** Checks the values. */
        public ByFrames {
            if (frames < 1 || count < 0) {
                throw new IllegalArgumentException("frames=" + frames + " must be >= 1 and count=" + count + " >= 0");
            }
        }
    }

    /**
     * Rounds of a fixed duration. The first, the warm-up, lasts at least {@code warmupNanos}; when
     * {@code settle} is set it then goes on until the JIT has compiled nothing for one round's length,
     * at most {@link #MAX_WARMUP_FACTOR} times {@code warmupNanos} (and one round) in all.
     *
     * @param roundNanos the length of every round after the first, at least 1 ms
     * @param warmupNanos the least length of the first round, at least 0
     * @param settle whether the warm-up also waits for the JIT to settle
     * @param count rounds before stopping, the warm-up included, or 0 for no limit
     */
    record ByTime(long roundNanos, long warmupNanos, boolean settle, long count) implements Rounds {
        /** How many times its least length the warm-up may last while the JIT is still compiling. */
        public static final int MAX_WARMUP_FACTOR = 5;

        /** Checks the values. */
        public ByTime {
            if (roundNanos < 1_000_000 || warmupNanos < 0 || count < 0) {
                throw new IllegalArgumentException("roundNanos=" + roundNanos + " must be >= 1000000, warmupNanos="
                        + warmupNanos + " >= 0 and count=" + count + " >= 0");
            }
        }
    }
}
