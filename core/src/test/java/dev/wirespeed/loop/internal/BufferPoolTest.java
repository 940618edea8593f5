package dev.wirespeed.loop.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** How a loop's pool hands out chunks, gathers them in its first slabs and gives back the slabs left unused. */
class BufferPoolTest {
    private static final int CHUNK = 4096;
    private static final int SLAB = CHUNK * BufferPool.CHUNKS_PER_SLAB;

    private final LoopStats stats = new LoopStats();
    private final LoopPools loopPools = new LoopPools(1);
    private final BufferPool pool = new BufferPool(CHUNK, stats, loopPools);

    @Test
    void slabsLeftUnusedForATrimAreGivenBackButThePoolsLastAndTheirMemoryIsFreed() {
        List<Chunk> taken = take(40); // three slabs
        assertEquals(3, pool.slabs());
        assertEquals(3L * SLAB, stats.pooledBytes());
        Chunk last = taken.get(39);
        giveAll(taken);
        assertTrue(loopPools.spare, "a slab besides the last has all its chunks back");
        assertEquals(48, pool.freeChunks());
        assertTrue(pool.trim(), "taken from since the last trim: kept, and due at the next");
        assertEquals(3, pool.slabs());
        assertFalse(pool.trim(), "nothing left to give back after the second trim");
        assertEquals(1, pool.slabs());
        assertEquals(16, pool.freeChunks());
        assertEquals(SLAB, stats.pooledBytes());
        // The chunks of a slab given back fail at once, rather than read memory freed.
        List<Chunk> keptChunks = take(16);
        boolean lastKept = keptChunks.contains(last);
        if (!lastKept) {
            assertThrows(IllegalStateException.class, () -> last.buf.get(0));
        }
        assertFalse(pool.trim(), "every chunk of the last slab is out");
        assertEquals(1, pool.slabs());
    }

    @Test
    void chunksComeFromTheFirstSlabWithOneFreeSoThatTheOthersEmpty() {
        List<Chunk> taken = take(48);
        Map<BufferPool.Slab, Integer> bySlab = new IdentityHashMap<>();
        // Give back in a random order, then take sixteen: all from one slab, the first.
        List<Chunk> shuffled = new ArrayList<>(taken);
        java.util.Collections.shuffle(shuffled, new Random(45));
        giveAll(shuffled);
        for (Chunk c : take(16)) {
            bySlab.merge(c.slab, 1, Integer::sum);
        }
        assertEquals(1, bySlab.size(), "sixteen chunks taken from " + bySlab.size() + " slabs");
        assertEquals(0, bySlab.keySet().iterator().next().index);
        pool.trim();
        pool.trim();
        assertEquals(1, pool.slabs(), "the two slabs left empty are given back, the busy one kept");
    }

    @Test
    void aSlabTakenFromBetweenTrimsIsKept() {
        List<Chunk> first = take(16);
        List<Chunk> second = take(16);
        giveAll(first);
        giveAll(second);
        pool.trim(); // both taken from since the start: kept
        for (int i = 0; i < 3; i++) { // the first slab in use again at every trim: kept; the second given back
            List<Chunk> busy = take(16);
            giveAll(busy);
            pool.trim();
        }
        assertEquals(1, pool.slabs());
        Chunk again = pool.take();
        assertEquals(0, again.slab.index, "the slab kept is the one used");
    }

    @Test
    void aSlabWithAChunkOutIsNeverGivenBackNorAtClose() {
        List<Chunk> taken = take(32);
        Chunk out = taken.remove(20); // of the second slab
        giveAll(taken);
        pool.trim();
        pool.trim();
        pool.trim();
        assertEquals(1, pool.slabs(), "the empty slab given back, the one with a chunk out kept");
        Chunk next = pool.take();
        assertSame(out.slab, next.slab, "the slab kept is the one with the chunk out");
        pool.give(next);
        out.buf.put(0, (byte) 1); // still its memory
        assertEquals(1, pool.close(), "one chunk not back at close");
        assertEquals(1, pool.slabs(), "its slab kept");
        pool.give(out);
        assertEquals(0, pool.close());
        assertEquals(0, pool.slabs());
        assertEquals(0, stats.pooledBytes());
    }

    @Test
    void aSlabGivenBackLeavesItsIndexToTheNextAndThePoolGrowsPastSixtyFourSlabs() {
        List<Chunk> taken = take(16 * 70);
        assertEquals(70, pool.slabs());
        giveAll(taken);
        pool.trim();
        pool.trim();
        assertEquals(1, pool.slabs());
        List<Chunk> again = take(16 * 70);
        assertEquals(70, pool.slabs());
        assertEquals(70L * SLAB, stats.pooledBytes());
        assertEquals(16 * 70, new java.util.HashSet<>(again).size());
    }

    @Test
    void aRetiredPoolKeepsNoSlabOnceItsChunksAreBack() {
        List<Chunk> taken = take(20);
        Chunk out = taken.remove(0);
        giveAll(taken);
        pool.retire();
        assertTrue(loopPools.spare, "a retired pool's slabs are due");
        pool.trim();
        pool.trim();
        assertEquals(1, pool.slabs(), "the slab with a chunk out is kept");
        pool.give(out);
        pool.trim();
        pool.trim();
        assertEquals(0, pool.slabs());
        assertEquals(0, stats.pooledBytes());
    }

    @Test
    void aHeapPoolsSlabsAreLeftToTheCollector() {
        BufferPool heap = new BufferPool(CHUNK, stats, loopPools, true);
        List<Chunk> taken = new ArrayList<>();
        for (int i = 0; i < 32; i++) {
            taken.add(heap.take());
        }
        assertFalse(taken.get(0).buf.isDirect());
        for (Chunk c : taken) {
            heap.give(c);
        }
        heap.trim();
        heap.trim();
        assertEquals(1, heap.slabs());
        assertEquals(SLAB, stats.pooledBytes());
    }

    @Test
    void theLoopTrimsEveryHalfTimeoutWhileAPoolHasASpareSlabAndNeverWithoutATimeout() {
        LoopPools timed = new LoopPools(1_000);
        BufferPool p = new BufferPool(CHUNK, stats, timed);
        assertFalse(timed.timed());
        List<Chunk> taken = new ArrayList<>();
        for (int i = 0; i < 32; i++) {
            taken.add(p.take());
        }
        for (Chunk c : taken) {
            p.give(c);
        }
        assertTrue(timed.timed());
        timed.tick(10_000); // sets the first trim: half the timeout on
        assertEquals(10_500, timed.nextTrim());
        timed.tick(10_499);
        assertEquals(2, p.slabs());
        timed.tick(10_500); // trims: the slabs were taken from since the start, so kept
        assertEquals(2, p.slabs());
        assertEquals(11_000, timed.nextTrim());
        timed.tick(11_000);
        assertEquals(1, p.slabs());
        assertFalse(timed.timed());
        assertEquals(Long.MAX_VALUE, timed.nextTrim());

        LoopPools never = new LoopPools(0);
        BufferPool kept = new BufferPool(CHUNK, stats, never);
        Chunk a = kept.take();
        Chunk b = kept.take();
        List<Chunk> more = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            more.add(kept.take());
        }
        kept.give(a);
        kept.give(b);
        for (Chunk c : more) {
            kept.give(c);
        }
        assertFalse(never.timed(), "a loop told to keep its memory reads no clock for it");
        assertNotSame(a, b);
        assertSame(a.home, kept);
    }

    @Test
    void aChunkSizeIsAMultipleOfAPageFromAPageTo64MiBAndOthersAreRefusedWithTheLimits() {
        assertEquals(4096, BufferPool.checkChunkSize(4096));
        assertEquals(64 << 20, BufferPool.checkChunkSize(64 << 20));
        for (int size : new int[] {0, 4095, 4096 + 2048, (64 << 20) + 4096}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> new BufferPool(size, stats, loopPools));
            assertEquals("chunkSize=" + size + " must be a multiple of 4096 from 4096 to 67108864", e.getMessage());
        }
        assertEquals(8192, new BufferPool(8192, stats, loopPools).chunkSize());
    }

    @Test
    void aSmallPoolsSizeIsAPowerOfTwoFrom64To32KiBAndOthersAreRefusedWithTheLimits() {
        assertEquals(64, BufferPool.small(64, stats, loopPools).chunkSize());
        assertEquals(32768, BufferPool.small(32768, stats, loopPools).chunkSize());
        for (int size : new int[] {32, 63, 96, 65536}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> BufferPool.small(size, stats, loopPools));
            assertEquals("size=" + size + " must be a power of two from 64 to 32768", e.getMessage());
        }
    }

    @Test
    void aLargeBufferIsOfItsOwnExactSizeAndGoesBackToNoPool() {
        Chunk large = BufferPool.large(100_000);
        assertEquals(100_000, large.capacity());
        assertTrue(large.buf.isDirect());
        assertFalse(large.pooled());
        large.end = 9;
        pool.give(large);
        assertEquals(0, large.end);
        assertEquals(0, pool.freeChunks());
    }

    @Test
    void theChunksOfASlabAreItsPagesInTurnEachStartingOnAPage() {
        List<Chunk> taken = take(32);
        for (int i = 0; i < taken.size(); i++) {
            Chunk c = taken.get(i);
            assertEquals(CHUNK, c.capacity());
            assertEquals(0, c.memory.address() % BufferPool.PAGE_SIZE, "chunk " + i + " at " + c.memory.address());
            c.buf.put(0, (byte) i);
            c.buf.put(CHUNK - 1, (byte) ~i);
        }
        for (int i = 0; i < taken.size(); i++) {
            assertEquals((byte) i, taken.get(i).buf.get(0), "chunk " + i + " shares memory with another");
            assertEquals((byte) ~i, taken.get(i).buf.get(CHUNK - 1), "chunk " + i + " shares memory with another");
        }
    }

    @Test
    void aSlabIsSpareOnlyOnceAllItsChunksAreBackAndNotThePoolsLast() {
        giveAll(take(16));
        assertFalse(loopPools.spare, "the pool's only slab is never spare");
        List<Chunk> taken = take(32);
        giveAll(taken.subList(0, 2));
        assertFalse(loopPools.spare, "two slabs, neither with all its chunks back");
        giveAll(taken.subList(2, 16));
        assertTrue(loopPools.spare, "the first slab has all its chunks back");
    }

    @Test
    void retiringAnEmptyPoolLeavesNothingDueAndAPoolWithASlabMakesItDue() {
        BufferPool empty = new BufferPool(CHUNK, stats, loopPools);
        empty.retire();
        assertFalse(loopPools.spare, "a pool with no slab has nothing to give back");
        giveAll(take(16));
        assertFalse(loopPools.spare);
        pool.retire();
        assertTrue(loopPools.spare, "a retired pool's last slab is due");
    }

    @Test
    void aTrimThatLeavesOnlyThePoolsLastSlabReportsNothingLeftEvenIfThatSlabWasJustUsed() {
        List<Chunk> first = take(16);
        Chunk second = pool.take(); // of the second slab: the first has none free
        pool.give(second);
        assertTrue(pool.trim(), "the second slab, taken from before this trim, is due at the next");
        pool.give(pool.take()); // the second slab again, taken from since the last trim
        giveAll(first);
        assertFalse(pool.trim(), "the first slab given back, the second is now the pool's last");
        assertEquals(1, pool.slabs());
        assertEquals(16, pool.freeChunks());
    }

    @Test
    void aSlabGivenBackIsNoLongerOfferedSoTheNextChunkComesFromALaterSlabWithOneFree() {
        List<Chunk> taken = take(48); // three slabs
        giveAll(taken.subList(16, 33)); // all the second slab's chunks, and one of the third's
        pool.trim();
        pool.trim();
        assertEquals(2, pool.slabs(), "the second slab given back");
        Chunk next = pool.take();
        assertSame(taken.get(32).slab, next.slab, "the third slab's free chunk, not a new slab");
        assertEquals(2, pool.slabs());
        Chunk carved = pool.take(); // none free: a new slab, in the second's place
        assertEquals(3, pool.slabs());
        assertEquals(1, carved.slab.index);
    }

    @Test
    void aLoopTrimsAndClosesEveryOneOfItsPoolsHoweverManyAndCountsTheChunksNotBack() {
        LoopPools many = new LoopPools(1_000);
        List<BufferPool> pools = new ArrayList<>();
        List<Chunk> out = new ArrayList<>();
        for (int p = 0; p < 9; p++) { // more than the first array holds
            BufferPool each = new BufferPool(CHUNK, stats, many);
            pools.add(each);
            List<Chunk> taken = new ArrayList<>();
            for (int i = 0; i < 17; i++) { // two slabs
                taken.add(each.take());
            }
            out.add(taken.remove(16)); // the second slab's, kept out
            for (Chunk c : taken) {
                each.give(c);
            }
        }
        many.tick(0);
        many.tick(500); // kept: taken from since the start
        many.tick(1_000);
        for (BufferPool each : pools) {
            assertEquals(1, each.slabs(), "the empty slab given back, the one with a chunk out kept");
        }
        assertEquals(9, many.close(), "one chunk out in each pool");
        for (BufferPool each : pools) {
            assertEquals(1, each.slabs(), "the slab with a chunk out kept at close");
        }
        for (int p = 0; p < 9; p++) {
            pools.get(p).give(out.get(p));
        }
        assertEquals(0, many.close());
        for (BufferPool each : pools) {
            assertEquals(0, each.slabs());
        }
        assertEquals(0, stats.pooledBytes());
    }

    private List<Chunk> take(int n) {
        List<Chunk> taken = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Chunk c = pool.take();
            assertEquals(0, c.start);
            assertEquals(0, c.end);
            taken.add(c);
        }
        return taken;
    }

    private void giveAll(List<Chunk> chunks) {
        for (Chunk c : chunks) {
            c.end = 7;
            pool.give(c);
        }
    }
}
