package dev.wirespeed.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class ScratchChunksTest {
    /** Takes whatever set this thread's slot holds and empties it of chunks, so that a test starts cold. */
    private static ScratchChunks cold() {
        ScratchChunks set = ScratchChunks.take();
        while (set.has(0)) {
            set = ScratchChunks.take(); // the slot is now empty: a new set
        }
        return set;
    }

    @Test
    void chunksAreMadeInOrderAndKeptForTheNextTakeInTheSameThread() {
        ScratchChunks set = cold();
        assertFalse(set.has(0));
        byte[] first = set.chunk(0);
        byte[] second = set.chunk(1);
        assertEquals(ScratchChunks.CHUNK, first.length);
        assertNotSame(first, second);
        assertSame(first, set.chunk(0), "an existing chunk is not made again");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> set.chunk(3));
        assertEquals("chunk index=3 skips past allocated=2", e.getMessage());
        set.release(1, 0);
        ScratchChunks again = ScratchChunks.take();
        assertSame(set, again, "the set is kept in this thread's slot");
        assertSame(first, again.chunk(0));
        assertSame(second, again.chunk(1));
        again.release(-1, 0);
    }

    @Test
    void releaseClearsEveryUsedByteAndNoOther() {
        ScratchChunks set = cold();
        for (int i = 0; i < 3; i++) {
            Arrays.fill(set.chunk(i), (byte) 7);
        }
        set.release(1, 100); // chunk 0 used whole, 100 bytes of chunk 1; chunk 2 not used by this call
        ScratchChunks again = ScratchChunks.take();
        assertSame(set, again);
        byte[] zeroChunk = new byte[ScratchChunks.CHUNK];
        assertTrue(Arrays.equals(zeroChunk, again.chunk(0)), "chunk 0 cleared whole");
        assertTrue(Arrays.equals(again.chunk(1), 0, 100, zeroChunk, 0, 100), "chunk 1 cleared up to 100");
        assertEquals(7, again.chunk(1)[100], "past what was used: left as it was (the caller said it was not used)");
        // Clean up for the other tests: a set whose unused bytes are not zero must not stay in the slot.
        again.release(2, ScratchChunks.CHUNK);
        assertTrue(Arrays.equals(zeroChunk, ScratchChunks.take().chunk(1)));
    }

    @Test
    void aSetGivenBackKeepsAtMostKeptChunks() {
        ScratchChunks set = cold();
        for (int i = 0; i < ScratchChunks.KEPT + 10; i++) {
            set.chunk(i);
        }
        set.release(ScratchChunks.KEPT + 9, ScratchChunks.CHUNK);
        ScratchChunks again = ScratchChunks.take();
        assertSame(set, again);
        assertTrue(again.has(ScratchChunks.KEPT - 1));
        assertFalse(again.has(ScratchChunks.KEPT), "chunks past KEPT are dropped");
        again.release(-1, 0);
    }

    @Test
    void aSecondTakeWhileTheFirstIsOutGetsAnotherSetAndOnlyOneIsKept() {
        ScratchChunks first = ScratchChunks.take();
        ScratchChunks second = ScratchChunks.take();
        assertNotSame(first, second);
        first.release(-1, 0);
        second.release(-1, 0); // the slot is full: dropped
        assertSame(first, ScratchChunks.take());
        assertNotSame(second, ScratchChunks.take());
    }

    @Test
    void setsAreAPowerOfTwoAndBounded() {
        assertTrue(ScratchChunks.SETS >= 1 && ScratchChunks.SETS <= 8, "SETS=" + ScratchChunks.SETS);
        assertEquals(1, Integer.bitCount(ScratchChunks.SETS), "SETS=" + ScratchChunks.SETS);
    }
}
