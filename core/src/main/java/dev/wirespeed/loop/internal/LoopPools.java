package dev.wirespeed.loop.internal;

import java.util.Arrays;

/**
 * The buffer pools of one loop, and when the loop gives back the memory they no longer use: while a
 * pool has a slab with all its chunks back besides its last ({@link #spare}), the loop trims its pools
 * every half of its unused-memory timeout ({@link dev.wirespeed.loop.LoopGroup.Builder#unusedMemoryTimeout}), and each
 * gives back the slabs none of whose chunks was taken since the previous trim ({@link BufferPool#trim}).
 * So a slab whose chunks are all back, and none taken for half the timeout, is given back at most a
 * timeout after its last chunk came back; and a loop whose pools have nothing to give back reads no
 * clock for them.
 *
 * <p>Not API: the module exports this package only to the library's native module.
 *
 * <p>Thread safety: confined to its loop's thread.
 */
public final class LoopPools {
    /** Half the unused-memory timeout; 0 where memory is kept for the loop's life. */
    private final long trimNanos;
    private BufferPool[] pools = new BufferPool[8];
    private int count;
    /** Set by a pool when a slab of it besides its last has all its chunks back; cleared by a trim that leaves none. */
    boolean spare;
    /** When the pools are trimmed next; {@code Long.MAX_VALUE} while none is due. */
    private long nextTrim = Long.MAX_VALUE;

    /** @param unusedNanos the unused-memory timeout; 0 to keep memory for the loop's life */
    public LoopPools(long unusedNanos) {
        this.trimNanos = unusedNanos == 0 ? 0 : Math.max(1, unusedNanos / 2);
    }

    /** Counts {@code pool} among the loop's: a pool adds itself when made. */
    void add(BufferPool pool) {
        if (count == pools.length) {
            pools = Arrays.copyOf(pools, count * 2);
        }
        pools[count++] = pool;
    }

    /** {@return whether the loop must read its clock for its pools: a slab may be given back} */
    public boolean timed() {
        return spare && trimNanos != 0;
    }

    /** {@return when the pools are trimmed next, {@code Long.MAX_VALUE} for never}, to bound the loop's wait */
    public long nextTrim() {
        return nextTrim;
    }

    /** At the end of a turn where {@link #timed()}, with the loop's clock: sets the next trim, or trims if due. */
    public void tick(long now) {
        if (nextTrim == Long.MAX_VALUE) {
            nextTrim = now + trimNanos;
        } else if (now - nextTrim >= 0) {
            boolean left = false;
            for (int i = 0; i < count; i++) {
                left |= pools[i].trim();
            }
            spare = left;
            nextTrim = left ? now + trimNanos : Long.MAX_VALUE;
        }
    }

    /**
     * Gives back every slab whose chunks are all back: the loop has ended, its connections closed and its
     * poller too.
     *
     * @return the chunks not back, whose slabs stay allocated
     */
    public int close() {
        int out = 0;
        for (int i = 0; i < count; i++) {
            out += pools[i].close();
        }
        return out;
    }
}
