package dev.wirespeed.loop.internal;

import java.util.Arrays;

/**
 * The memory a loop's connections keep for frames not yet whole between reads: each partial frame in a
 * buffer about the size of what has come of it, and all of them within the loop's input budget, so that
 * memory follows the bytes that came, never the lengths that peers announce.
 *
 * <p>The sizes a partial frame is kept in, smallest first: pooled buffers of {@link #HOLD_SIZES} bytes
 * (those smaller than a chunk), then a chunk, then, for a frame longer than a chunk, a buffer of its
 * own that doubles as its bytes come, up to the frame's length. So a buffer is at most four times the
 * bytes it keeps while it is pooled, and at most twice once it is the frame's own.
 *
 * <p>The budget: {@code 0 <= held <= budget}, {@code held} the sum of the sizes of the buffers the
 * connections' partial frames and records are kept in, which their readers count here ({@link #add}) as
 * they take and give back those buffers. A connection whose partial frame would take {@code held} past
 * the budget is refused before its buffer is made ({@link #fits}).
 *
 * <p>The same buffers and the same budget keep a TLS connection's partial record.
 *
 * <p>Not API: the module exports this package only to the library's native module.
 *
 * <p>Thread safety: the loop's thread, but for {@link #held()}.
 */
public final class InputMemory {
    /** The pooled sizes below a chunk, a partial frame kept in the smallest that holds it. */
    static final int[] HOLD_SIZES = {256, 1024, 4096, 16384};

    private final BufferPool chunks;
    /** The pools of {@link #HOLD_SIZES} smaller than a chunk, smallest first. */
    private final BufferPool[] holds;
    private final long budget;
    /** Written by the loop's thread only; read by others for the group's totals. */
    private volatile long held;

    /**
     * The memory of a loop whose chunks come from {@code chunks}, within {@code budget}.
     *
     * @param stats told of the slabs its small pools make and give back
     * @param loopPools the loop's pools, which its small pools join
     */
    public InputMemory(BufferPool chunks, long budget, LoopStats stats, LoopPools loopPools) {
        this.chunks = chunks;
        this.budget = budget;
        this.holds = Arrays.stream(HOLD_SIZES)
                .filter(size -> size < chunks.chunkSize())
                .mapToObj(size -> BufferPool.small(size, stats, loopPools))
                .toArray(BufferPool[]::new);
    }

    /** {@return the most bytes kept, the loop's input budget} */
    public long budget() {
        return budget;
    }

    /** {@return the bytes the loop's connections keep for partial frames}, from any thread */
    public long held() {
        return held;
    }

    /** {@return the most bytes kept in a pooled buffer smaller than a chunk} */
    public int largestHold() {
        return holds.length == 0 ? 0 : holds[holds.length - 1].chunkSize();
    }

    /**
     * {@return the size of buffer to keep {@code present} bytes of a frame of {@code needed} bytes in (0
     * where its header has not all come)}, given the buffer it is in now, of {@code current} bytes (0 for none)
     */
    public long sizeFor(int present, int needed, int current) {
        for (BufferPool hold : holds) {
            if (present <= hold.chunkSize()) {
                return hold.chunkSize();
            }
        }
        if (present <= chunks.chunkSize()) {
            return chunks.chunkSize();
        }
        return Math.min(needed, Math.max(present, 2L * current));
    }

    /** {@return a buffer of {@code size} bytes, as {@link #sizeFor} said: pooled, or one of its own} */
    public Chunk take(long size) {
        for (BufferPool hold : holds) {
            if (size == hold.chunkSize()) {
                return hold.take();
            }
        }
        return size == chunks.chunkSize() ? chunks.take() : BufferPool.large(Math.toIntExact(size));
    }

    /** Gives {@code c}, from {@link #take}, back to its pool (a buffer of its own is left to the collector). */
    public void give(Chunk c) {
        chunks.give(c);
    }

    /**
     * {@return whether {@code size} bytes more may be kept, within the budget}: a partial frame or record in a
     * new buffer, or the difference where it moves from one buffer to another (negative where it shrinks)
     */
    public boolean fits(long size) {
        return held + size <= budget;
    }

    /** Counts {@code delta} bytes more (or fewer, where negative) kept for partial frames and records. */
    public void add(long delta) {
        held += delta;
    }
}
