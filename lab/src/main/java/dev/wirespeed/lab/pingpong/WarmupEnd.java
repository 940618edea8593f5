package dev.wirespeed.lab.pingpong;

/**
 * When a ping's warm-up ends, in {@link System#nanoTime()} terms, counted from {@link #begin}, the
 * first round trip: once it has lasted {@code minNanos}
 * and then, with a {@code quietNanos} above 0, once the JIT has compiled nothing for {@code quietNanos}
 * (looked at between round trips); at most {@link #MAX_FACTOR} times {@code minNanos + quietNanos} in
 * all, however busy the JIT stays.
 *
 * <p>A round trip timed while the JIT still compiles the loop, or anything it calls, measures the
 * compiler sharing the CPU, not the path; on one CPU shared with the echo that lasts longer than any
 * fixed count of round trips says.
 *
 * <p>Thread safety: one thread looks.
 */
public final class WarmupEnd {
    /** How many times {@code minNanos + quietNanos} the warm-up may last while the JIT is still compiling. */
    public static final int MAX_FACTOR = 3;

    /** Added to now while the end is not known: far enough that {@code end - 1 - now} stays positive. */
    static final long UNKNOWN = 1L << 62;

    private long start;
    private boolean begun;
    private final long minNanos;
    private final long quietNanos;
    private final long maxNanos;
    private boolean known;
    private long end;
    private boolean settledByJit;
    /** The compilation time at the last look where it had changed, and when that look was; -1 before the first. */
    private long mark = -1;
    private long markAt;

    /**
     * An end not yet begun.
     *
     * @param minNanos the warm-up's least length, {@code 0 <= minNanos < 2^60}
     * @param quietNanos 0 to end after {@code minNanos}; else how long the JIT must stay idle,
     *     {@code < 2^56}
     */
    public WarmupEnd(long minNanos, long quietNanos) {
        if (minNanos < 0 || minNanos >= 1L << 60 || quietNanos < 0 || quietNanos >= 1L << 56) {
            throw new IllegalArgumentException("minNanos=" + minNanos + " must be 0 to 2^60 and quietNanos="
                    + quietNanos + " 0 to 2^56");
        }
        this.minNanos = minNanos;
        this.quietNanos = quietNanos;
        this.maxNanos = MAX_FACTOR * (minNanos + quietNanos);
    }

    /**
     * Starts the warm-up's clock: called once, as the first round trip leaves, so that connecting and
     * starting up do not count as warming up.
     *
     * @param start when the warm-up began
     * @return this
     * @throws IllegalStateException if it has begun already
     */
    WarmupEnd begin(long start) {
        if (begun) {
            throw new IllegalStateException("the warm-up began already, at " + this.start);
        }
        begun = true;
        this.start = start;
        if (quietNanos == 0) {
            known = true;
            end = start + minNanos;
        }
        return this;
    }

    /** {@return whether the end is known, so that {@link #look} no longer needs the JIT's time} */
    boolean known() {
        return known;
    }

    /**
     * {@return the warm-up's end if known, else {@code now +} {@link #UNKNOWN}}
     *
     * @throws IllegalStateException before {@link #begin}
     * @param now the time of this look
     * @param compileMillis the JIT's total compilation time at {@code now}
     */
    long look(long now, long compileMillis) {
        if (!begun) {
            throw new IllegalStateException("look before begin: now=" + now);
        }
        if (known) {
            return end;
        }
        long elapsed = now - start;
        if (elapsed < minNanos) {
            return now + UNKNOWN;
        }
        if (mark < 0 || compileMillis != mark) {
            mark = compileMillis;
            markAt = now;
        } else if (now - markAt >= quietNanos) {
            settledByJit = true;
            known = true;
            end = now;
            return end;
        }
        if (elapsed >= maxNanos) {
            known = true;
            end = now;
            return end;
        }
        return now + UNKNOWN;
    }

    /** {@return whether the JIT was seen idle for the quiet time; false if there was none, or the warm-up ran out first} */
    public boolean settledByJit() {
        return settledByJit;
    }
}
