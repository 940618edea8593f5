package dev.wirespeed.loop.internal;

import java.lang.foreign.Arena;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The chunks of one loop: fixed-size buffers carved {@value #CHUNKS_PER_SLAB} at a time from slabs,
 * handed to a connection while it has bytes buffered and taken back as soon as it has none, so that an
 * idle connection holds no buffer. Chunks never move between loops.
 *
 * <p>Giving memory back: a chunk is taken from the first slab, in the pool's order, that has one free,
 * so that chunks gather in few slabs and the others empty when the load goes. {@link #trim()}, which
 * the loop calls at intervals while a slab has all its chunks back ({@link LoopPools}), gives back
 * each slab whose chunks are all back and none of which was taken since the previous trim, but the
 * pool's last slab. A direct slab is memory of its own {@link Arena}, closed on the loop's thread when
 * the slab is given back, so its memory is freed then, not when a collection finds it; a slab on the
 * heap is left to the collector. A chunk handed to the kernel (an io_uring send) is not back until the
 * kernel is done with it, so no slab is freed under an operation in flight.
 *
 * <p>Invariants: {@code 0 <= freeCount <= chunks == CHUNKS_PER_SLAB * slabCount}; bit {@code i} of
 * {@code withFree} is set exactly where {@code slabs[i]} has a chunk free.
 *
 * <p>Thread safety: confined to its loop's thread: a direct slab's memory may be read and written on
 * that thread only.
 *
 * <p>Not API: the module exports this package only to the library's native module.
 */
public final class BufferPool {
    /** Slabs are allocated in pages and aligned to one, as the kernel copies page-aligned memory faster. */
    public static final int PAGE_SIZE = 4096;
    /** Chunks per slab: one allocation per 16 chunks. */
    static final int CHUNKS_PER_SLAB = 16;
    /** The largest chunk: a slab of 1 GiB. */
    static final int MAX_CHUNK_SIZE = (1 << 30) / CHUNKS_PER_SLAB;

    private final int chunkSize;
    /** Slabs on the Java heap rather than direct: for the JDK's TLS engine, whose ciphers copy direct buffers. */
    private final boolean heap;
    /** Told of each slab made and given back, so that other threads see what the pool holds. */
    private final LoopStats stats;
    /** The loop's pools, told when a slab of this one may be given back. */
    private final LoopPools loopPools;
    /** The slabs made and not given back, by index; null where given back (an index used again first). */
    private Slab[] slabs = new Slab[4];
    /** Bit {@code i}: {@code slabs[i]} has a free chunk. */
    private long[] withFree = new long[1];
    private int slabCount;
    /** Chunks no connection holds, in all the slabs. */
    private int freeCount;
    /** Trims so far: a slab taken from since the last trim has {@code lastTake == trims}. */
    private int trims;
    /** The slabs a trim keeps: one, or none once the pool is {@linkplain #retire() retired}. */
    private int keep = 1;

    /**
     * A pool of direct buffers of {@code chunkSize} bytes.
     *
     * @param stats told of the slabs made and given back
     * @param loopPools the loop's pools, which this one joins
     * @throws IllegalArgumentException if {@code chunkSize} is not as {@link #checkChunkSize} takes it
     */
    public BufferPool(int chunkSize, LoopStats stats, LoopPools loopPools) {
        this(stats, loopPools, checkChunkSize(chunkSize), false);
    }

    /**
     * A pool of buffers of {@code chunkSize} bytes, on the heap or direct.
     *
     * @param stats told of the slabs made and given back
     * @param loopPools the loop's pools, which this one joins
     * @param heap whether its slabs are on the heap rather than direct
     * @throws IllegalArgumentException if {@code chunkSize} is not as {@link #checkChunkSize} takes it
     */
    public BufferPool(int chunkSize, LoopStats stats, LoopPools loopPools, boolean heap) {
        this(stats, loopPools, checkChunkSize(chunkSize), heap);
    }

    /** A pool of buffers of {@code chunkSize} bytes, checked by the caller. */
    private BufferPool(LoopStats stats, LoopPools loopPools, int chunkSize, boolean heap) {
        this.chunkSize = chunkSize;
        this.stats = stats;
        this.heap = heap;
        this.loopPools = loopPools;
        loopPools.add(this);
    }

    /**
     * {@return a pool of direct buffers of {@code size} bytes, a power of two below a page}: for the
     * partial frames a loop keeps between reads, each in a buffer about its size
     */
    static BufferPool small(int size, LoopStats stats, LoopPools loopPools) {
        if (size < 64 || size >= PAGE_SIZE * CHUNKS_PER_SLAB || Integer.bitCount(size) != 1) {
            throw new IllegalArgumentException("size=" + size + " must be a power of two from 64 to "
                    + PAGE_SIZE * CHUNKS_PER_SLAB / 2);
        }
        return new BufferPool(stats, loopPools, size, false);
    }

    /** {@return {@code chunkSize}, if a multiple of a page from a page to 64 MiB (a slab within 1 GiB)} */
    public static int checkChunkSize(int chunkSize) {
        if (chunkSize < PAGE_SIZE || chunkSize % PAGE_SIZE != 0 || chunkSize > MAX_CHUNK_SIZE) {
            throw new IllegalArgumentException("chunkSize=" + chunkSize + " must be a multiple of " + PAGE_SIZE
                    + " from " + PAGE_SIZE + " to " + MAX_CHUNK_SIZE);
        }
        return chunkSize;
    }

    /** {@return the bytes of each of its buffers} */
    public int chunkSize() {
        return chunkSize;
    }

    /** {@return a chunk with {@code start == end == 0}}, from the first slab with one free */
    public Chunk take() {
        Slab slab = firstWithFree();
        if (slab == null) {
            slab = carveSlab();
        }
        Chunk c = slab.free[--slab.freeCount];
        slab.free[slab.freeCount] = null;
        slab.lastTake = trims;
        if (slab.freeCount == 0) {
            withFree[slab.index >>> 6] &= ~(1L << slab.index);
        }
        freeCount--;
        return c;
    }

    /**
     * Takes {@code c} back into the pool it came from, which need not be this one (a loop's pools share
     * its thread); a buffer of its own size is left to the collector.
     */
    public void give(Chunk c) {
        c.start = 0;
        c.end = 0;
        BufferPool home = c.home;
        if (home != null) {
            home.putBack(c);
        }
    }

    private void putBack(Chunk c) {
        Slab slab = c.slab;
        slab.free[slab.freeCount++] = c;
        freeCount++;
        if (slab.freeCount == 1) {
            withFree[slab.index >>> 6] |= 1L << slab.index;
        } else if (slab.freeCount == CHUNKS_PER_SLAB && slabCount > keep) {
            loopPools.spare = true;
        }
    }

    /** {@return a direct buffer of exactly {@code capacity} bytes, of its own, for one frame}. */
    public static Chunk large(int capacity) {
        return new Chunk(ByteBuffer.allocateDirect(capacity).order(ByteOrder.BIG_ENDIAN), null, null);
    }

    /** {@return the chunks no connection holds}. */
    int freeChunks() {
        return freeCount;
    }

    /** {@return the slabs the pool holds} */
    int slabs() {
        return slabCount;
    }

    /**
     * Takes no chunk from this pool any more (its owner made a larger one): a trim keeps none of its slabs.
     */
    public void retire() {
        keep = 0;
        if (slabCount > 0) {
            loopPools.spare = true;
        }
    }

    /**
     * Gives back each slab whose chunks are all back and none of which was taken since the previous trim,
     * but the pool's last slab (none once retired).
     *
     * @return whether a slab is left with all its chunks back besides the pool's last, for a later trim
     */
    boolean trim() {
        boolean spare = false;
        for (int i = slabs.length - 1; i >= 0 && slabCount > keep; i--) {
            Slab slab = slabs[i];
            if (slab != null && slab.freeCount == CHUNKS_PER_SLAB) {
                if (slab.lastTake == trims) {
                    spare = true; // taken from since the last trim: kept until the next
                } else {
                    release(slab);
                }
            }
        }
        trims++;
        return spare && slabCount > keep;
    }

    /**
     * Gives back every slab whose chunks are all back: the loop has ended.
     *
     * @return the chunks not back, whose slabs are kept: in a connection the loop could not close, or in
     *     an operation the kernel did not finish
     */
    int close() {
        int out = 0;
        for (Slab slab : slabs) {
            if (slab == null) {
                continue;
            }
            if (slab.freeCount == CHUNKS_PER_SLAB) {
                release(slab);
            } else {
                out += CHUNKS_PER_SLAB - slab.freeCount;
            }
        }
        return out;
    }

    private Slab firstWithFree() {
        long[] bits = withFree;
        for (int w = 0; w < bits.length; w++) {
            if (bits[w] != 0) {
                return slabs[(w << 6) + Long.numberOfTrailingZeros(bits[w])];
            }
        }
        return null;
    }

    private Slab carveSlab() {
        int index = 0;
        while (index < slabs.length && slabs[index] != null) {
            index++;
        }
        if (index == slabs.length) {
            slabs = Arrays.copyOf(slabs, slabs.length * 2);
            if (withFree.length * 64 < slabs.length) {
                withFree = Arrays.copyOf(withFree, withFree.length * 2);
            }
        }
        int slabSize = chunkSize * CHUNKS_PER_SLAB;
        Arena arena = heap ? null : Arena.ofConfined();
        ByteBuffer memory = heap ? ByteBuffer.allocate(slabSize)
                : arena.allocate(slabSize, slabSize < PAGE_SIZE * CHUNKS_PER_SLAB ? Long.BYTES : PAGE_SIZE).asByteBuffer();
        Slab slab = new Slab(index, arena, slabSize);
        for (int i = CHUNKS_PER_SLAB - 1; i >= 0; i--) {
            ByteBuffer b = memory.slice(i * chunkSize, chunkSize).order(ByteOrder.BIG_ENDIAN);
            slab.free[slab.freeCount++] = new Chunk(b, this, slab);
        }
        slabs[index] = slab;
        withFree[index >>> 6] |= 1L << index;
        slabCount++;
        freeCount += CHUNKS_PER_SLAB;
        stats.pooled(slabSize);
        return slab;
    }

    private void release(Slab slab) {
        slabs[slab.index] = null;
        withFree[slab.index >>> 6] &= ~(1L << slab.index);
        slabCount--;
        freeCount -= CHUNKS_PER_SLAB;
        Arrays.fill(slab.free, null);
        if (slab.arena != null) {
            slab.arena.close(); // its chunks' buffers fail from now on, rather than read freed memory
        }
        stats.pooled(-slab.bytes);
    }

    /** One allocation of {@link #CHUNKS_PER_SLAB} chunks, and which of them are free. */
    static final class Slab {
        final int index;
        /** The slab's memory, direct; null on the heap. */
        final Arena arena;
        final int bytes;
        /** {@code free[0, freeCount)}: the slab's chunks no connection holds. */
        final Chunk[] free = new Chunk[CHUNKS_PER_SLAB];
        int freeCount;
        /** The pool's count of trims when a chunk was last taken from this slab. */
        int lastTake;

        Slab(int index, Arena arena, int bytes) {
            this.index = index;
            this.arena = arena;
            this.bytes = bytes;
        }
    }
}
