package dev.wirespeed.loop;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The chunks of one loop: fixed-size direct buffers carved from page-aligned slabs, handed to a
 * connection while it has bytes buffered and taken back as soon as it has none, so that an idle
 * connection holds no buffer. Slabs are kept for the loop's life; chunks never move between loops.
 *
 * <p>Thread safety: confined to its loop's thread.
 */
final class BufferPool {
    /** Slabs are allocated in pages and aligned to one, as the kernel copies page-aligned memory faster. */
    static final int PAGE_SIZE = 4096;
    /** Chunks per slab: one allocation (and one page of slack) per 16 chunks. */
    static final int CHUNKS_PER_SLAB = 16;
    /** The largest chunk: a slab of 1 GiB. */
    static final int MAX_CHUNK_SIZE = (1 << 30) / CHUNKS_PER_SLAB;

    private final int chunkSize;
    /** Slabs on the Java heap rather than direct: for the JDK's TLS engine, whose ciphers copy direct buffers. */
    private final boolean heap;
    /** Told of each slab, so that other threads see what the pool holds (with the loop's other pools). */
    private final LoopStats stats;
    /** {@code free[0, freeCount)} are the chunks no connection holds. */
    private Chunk[] free = new Chunk[CHUNKS_PER_SLAB];
    private int freeCount;
    /** Chunks carved so far; {@code >= freeCount}. */
    private int chunks;

    BufferPool(int chunkSize, LoopStats stats) {
        this(chunkSize, stats, false);
    }

    BufferPool(int chunkSize, LoopStats stats, boolean heap) {
        this(stats, checkChunkSize(chunkSize), heap);
    }

    /** A pool of buffers of {@code chunkSize} bytes, checked by the caller. */
    private BufferPool(LoopStats stats, int chunkSize, boolean heap) {
        this.chunkSize = chunkSize;
        this.stats = stats;
        this.heap = heap;
    }

    /**
     * {@return a pool of direct buffers of {@code size} bytes, a power of two below a page}: for the
     * partial frames a loop keeps between reads, each in a buffer about its size
     */
    static BufferPool small(int size, LoopStats stats) {
        if (size < 64 || size >= PAGE_SIZE * CHUNKS_PER_SLAB || Integer.bitCount(size) != 1) {
            throw new IllegalArgumentException("size=" + size + " must be a power of two from 64 to "
                    + PAGE_SIZE * CHUNKS_PER_SLAB / 2);
        }
        return new BufferPool(stats, size, false);
    }

    /** {@return {@code chunkSize}, if a multiple of a page from a page to 64 MiB (a slab within 1 GiB)} */
    static int checkChunkSize(int chunkSize) {
        if (chunkSize < PAGE_SIZE || chunkSize % PAGE_SIZE != 0 || chunkSize > MAX_CHUNK_SIZE) {
            throw new IllegalArgumentException("chunkSize=" + chunkSize + " must be a multiple of " + PAGE_SIZE
                    + " from " + PAGE_SIZE + " to " + MAX_CHUNK_SIZE);
        }
        return chunkSize;
    }

    int chunkSize() {
        return chunkSize;
    }

    /** {@return a chunk with {@code start == end == 0}}. */
    Chunk take() {
        if (freeCount == 0) {
            carveSlab();
        }
        Chunk c = free[--freeCount];
        free[freeCount] = null;
        return c;
    }

    /**
     * Takes {@code c} back into the pool it came from, which need not be this one (a loop's pools share
     * its thread); a buffer of its own size is left to the collector.
     */
    void give(Chunk c) {
        c.start = 0;
        c.end = 0;
        BufferPool home = c.home;
        if (home != null) {
            home.free[home.freeCount++] = c;
        }
    }

    /** {@return a direct buffer of exactly {@code capacity} bytes, of its own, for one frame}. */
    static Chunk large(int capacity) {
        return new Chunk(ByteBuffer.allocateDirect(capacity).order(ByteOrder.BIG_ENDIAN), null);
    }

    /** {@return the chunks no connection holds}. */
    int freeChunks() {
        return freeCount;
    }

    private void carveSlab() {
        int slabSize = chunkSize * CHUNKS_PER_SLAB;
        ByteBuffer slab = heap ? ByteBuffer.allocate(slabSize)
                : slabSize < PAGE_SIZE * CHUNKS_PER_SLAB ? ByteBuffer.allocateDirect(slabSize) // small: not aligned
                : ByteBuffer.allocateDirect(slabSize + PAGE_SIZE - 1).alignedSlice(PAGE_SIZE);
        if (free.length < chunks + CHUNKS_PER_SLAB) {
            free = Arrays.copyOf(free, Math.max(free.length * 2, chunks + CHUNKS_PER_SLAB));
        }
        for (int i = CHUNKS_PER_SLAB - 1; i >= 0; i--) {
            ByteBuffer b = slab.slice(i * chunkSize, chunkSize).order(ByteOrder.BIG_ENDIAN);
            free[freeCount++] = new Chunk(b, this);
        }
        chunks += CHUNKS_PER_SLAB;
        stats.pooled(slabSize);
    }
}
