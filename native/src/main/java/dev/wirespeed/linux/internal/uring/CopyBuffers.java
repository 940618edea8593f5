package dev.wirespeed.linux.internal.uring;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * A poller's send buffers that writes copy into ({@link UringEndpoint#write}): {@code size} bytes each,
 * made {@value #PER_SLAB} at a time in slabs, each slab memory of its own. The writes of a turn, of any
 * connections, go one after the other into the buffer being filled, each sent from its own part, so
 * that a burst of small writes (a thousand handshakes' flights) takes a few buffers, not one each; a
 * buffer is free again once every part has been sent (or dropped), the one being filled too.
 *
 * <p>Memory follows the load: a new buffer comes from the first slab (in the order they were made) that
 * has one free, so that the later slabs empty as the load goes, and a slab whose buffers have all been
 * free for {@code unusedNanos} is given back, its memory freed, all but the first. The poller asks
 * {@link #trimAt()} when it would next have one to give back, waits no longer than that, and calls
 * {@link #trim(long)}.
 *
 * <p>Thread safety: the poller's thread.
 */
final class CopyBuffers {
    static final int PER_SLAB = 16;
    private static final int PAGE = 4096;

    /**
     * A buffer, its address and a view to copy into, and how much of it the writes being sent hold:
     * {@code parts} of them, in {@code [0, used)}; {@code used} is 0 whenever {@code parts} is.
     */
    static final class CopyBuffer {
        final long address;
        final ByteBuffer view;
        final Slab slab;
        int used;
        int parts;

        CopyBuffer(long address, ByteBuffer view, Slab slab) {
            this.address = address;
            this.view = view;
            this.slab = slab;
        }
    }

    /** {@value #PER_SLAB} buffers in one piece of memory; those free on a stack. */
    static final class Slab {
        final Arena arena = Arena.ofShared(); // freed on the poller's thread; shared, as the poller's own
        final CopyBuffer[] free = new CopyBuffer[PER_SLAB];
        int freeCount;
        /** When its last buffer came back (System.nanoTime), while all are free. */
        long emptySince;
    }

    private final int size;
    private final long unusedNanos;
    /** Slabs in the order they were made, {@code [0, slabCount)}. */
    private Slab[] slabs = new Slab[4];
    private int slabCount;
    /** Slabs but the first whose buffers are all free: candidates to give back. */
    private int spare;
    /** The buffer writes copy into next, after what earlier writes left in it; null when there is none. */
    private CopyBuffer filling;

    /**
     * @param size each buffer's bytes
     * @param unusedNanos how long a slab's buffers are all free before it is given back; 0 to keep every slab
     */
    CopyBuffers(int size, long unusedNanos) {
        this.size = size;
        this.unusedNanos = unusedNanos;
    }

    /**
     * {@return the buffer for a write of {@code wanted} bytes}: the one being filled if they fit after what
     * it holds (or it holds nothing), else a free one, which is filled from then on. The caller copies at
     * most its capacity less {@link CopyBuffer#used} there, and counts the part with {@link #handed}.
     */
    CopyBuffer bufferFor(int wanted) {
        CopyBuffer b = filling;
        if (b != null && (b.parts == 0 || wanted <= size - b.used)) {
            return b;
        }
        b = take();
        filling = b; // the one filled before goes back to its slab once its last part is sent
        return b;
    }

    /** Counts a part of {@code b}, {@code n} bytes at its {@link CopyBuffer#used}, handed to a write. */
    static void handed(CopyBuffer b, int n) {
        b.used += n;
        b.parts++;
    }

    /** A part of {@code b} was sent, or dropped: the buffer is free once its last part is. */
    void returned(CopyBuffer b) {
        if (--b.parts > 0) {
            return;
        }
        b.used = 0;
        if (b == filling) {
            filling = null; // the next write takes a buffer of the first slab with one free
        }
        Slab s = b.slab;
        s.free[s.freeCount++] = b;
        if (s.freeCount == PER_SLAB && s != slabs[0]) {
            s.emptySince = System.nanoTime();
            spare++;
        }
    }

    /** {@return when a slab could next be given back (System.nanoTime), or Long.MAX_VALUE if none could} */
    long trimAt() {
        if (spare == 0 || unusedNanos == 0) {
            return Long.MAX_VALUE;
        }
        long at = Long.MAX_VALUE;
        for (int i = 1; i < slabCount; i++) {
            Slab s = slabs[i];
            if (s.freeCount == PER_SLAB) {
                at = Math.min(at, s.emptySince + unusedNanos);
            }
        }
        return at;
    }

    /** Gives back the slabs, but the first, whose buffers have all been free for the unused time at {@code now}. */
    void trim(long now) {
        if (spare == 0 || unusedNanos == 0) {
            return;
        }
        int kept = 1;
        for (int i = 1; i < slabCount; i++) {
            Slab s = slabs[i];
            if (s.freeCount == PER_SLAB && now - s.emptySince >= unusedNanos) {
                spare--;
                s.arena.close();
            } else {
                slabs[kept++] = s;
            }
        }
        Arrays.fill(slabs, kept, slabCount, null);
        slabCount = kept;
    }

    /** {@return the buffers in use: holding a part not sent yet, or being filled}: for tests */
    int inUse() {
        int free = 0;
        for (int i = 0; i < slabCount; i++) {
            free += slabs[i].freeCount;
        }
        return slabCount * PER_SLAB - free;
    }

    /** {@return the bytes of the slabs held}: for tests */
    long bytes() {
        return (long) slabCount * PER_SLAB * size;
    }

    /** Frees every slab: once no send of the poller's is in flight. */
    void close() {
        for (int i = 0; i < slabCount; i++) {
            slabs[i].arena.close();
            slabs[i] = null;
        }
        slabCount = 0;
        spare = 0;
        filling = null;
    }

    /** {@return a free buffer of the first slab that has one}, a new slab made if none has */
    private CopyBuffer take() {
        for (int i = 0; i < slabCount; i++) {
            Slab s = slabs[i];
            if (s.freeCount > 0) {
                if (s.freeCount == PER_SLAB && i > 0) {
                    spare--;
                }
                CopyBuffer b = s.free[--s.freeCount];
                s.free[s.freeCount] = null;
                return b;
            }
        }
        Slab s = new Slab();
        MemorySegment memory = s.arena.allocate((long) size * PER_SLAB, PAGE);
        for (int i = PER_SLAB - 1; i >= 0; i--) {
            MemorySegment buffer = memory.asSlice((long) i * size, size);
            s.free[s.freeCount++] = new CopyBuffer(buffer.address(), buffer.asByteBuffer(), s);
        }
        if (slabCount == slabs.length) {
            slabs = Arrays.copyOf(slabs, slabCount * 2);
        }
        slabs[slabCount++] = s;
        CopyBuffer b = s.free[--s.freeCount];
        s.free[s.freeCount] = null;
        return b;
    }
}
