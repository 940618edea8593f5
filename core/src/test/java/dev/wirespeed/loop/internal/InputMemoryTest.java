package dev.wirespeed.loop.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Which buffer a partial frame is kept in, by the bytes that came of it, and the budget they count against. */
class InputMemoryTest {
    private final LoopStats stats = new LoopStats();
    private final LoopPools loopPools = new LoopPools(1);

    private InputMemory memory(int chunkSize) {
        return new InputMemory(new BufferPool(chunkSize, stats, loopPools), 1 << 20, stats, loopPools);
    }

    @Test
    void thePooledSizesAreThoseBelowAChunk() {
        assertEquals(1024, memory(4096).largestHold(), "a chunk of 4096 bytes: no pooled size of its own");
        assertEquals(4096, memory(8192).largestHold());
        assertEquals(16384, memory(64 * 1024).largestHold());
    }

    @Test
    void aPartialFrameIsKeptInTheSmallestSizeThatHoldsItThenAChunkThenItsOwnDoublingUpToTheFrame() {
        InputMemory m = memory(64 * 1024);
        assertEquals(256, m.sizeFor(5, 0, 0), "a partial header");
        assertEquals(256, m.sizeFor(256, 100_000, 0));
        assertEquals(1024, m.sizeFor(257, 100_000, 0));
        assertEquals(16384, m.sizeFor(16384, 100_000, 0));
        assertEquals(64 * 1024, m.sizeFor(16385, 100_000, 0));
        assertEquals(64 * 1024, m.sizeFor(64 * 1024, 100_000, 0));
        assertEquals(2 * 64 * 1024, m.sizeFor(64 * 1024 + 1, 1_000_000, 64 * 1024), "twice the buffer it is in");
        assertEquals(100_000, m.sizeFor(64 * 1024 + 1, 100_000, 64 * 1024), "never past the frame");
        assertEquals(300_000, m.sizeFor(300_000, 1_000_000, 64 * 1024), "at least the bytes that came");
    }

    @Test
    void aFrameOutgrowingItsSmallBufferMovesToAChunkWhereAChunkHoldsWhatCame() {
        InputMemory m = memory(20 * 1024); // its largest pooled size, 16 KiB, is more than half a chunk
        assertEquals(20 * 1024, m.sizeFor(20 * 1024, 100_000, 16384), "a chunk, not twice the 16 KiB it was in");
        assertEquals(32 * 1024, m.sizeFor(20 * 1024 + 1, 100_000, 16384), "past a chunk: twice what it was in");
    }

    @Test
    void eachSizeComesFromItsPoolAndGoesBackToIt() {
        InputMemory m = memory(64 * 1024);
        for (int size : new int[] {256, 1024, 4096, 16384, 64 * 1024}) {
            Chunk c = m.take(size);
            assertEquals(size, c.capacity());
            assertTrue(c.pooled());
            BufferPool home = c.home;
            int free = home.freeChunks();
            m.give(c);
            assertEquals(free + 1, home.freeChunks(), "a buffer of " + size + " bytes back in its pool");
        }
        Chunk own = m.take(100_000);
        assertEquals(100_000, own.capacity());
        assertFalse(own.pooled());
    }

    @Test
    void whatIsKeptCountsAgainstTheBudgetAndAShrinkingBufferGivesSomeBack() {
        InputMemory m = new InputMemory(new BufferPool(4096, stats, loopPools), 10_000, stats, loopPools);
        assertEquals(10_000, m.budget());
        assertTrue(m.fits(10_000));
        assertFalse(m.fits(10_001));
        m.add(8_000);
        assertEquals(8_000, m.held());
        assertTrue(m.fits(2_000));
        assertFalse(m.fits(2_001));
        m.add(-4_096);
        assertEquals(3_904, m.held());
        assertTrue(m.fits(6_096));
    }
}
