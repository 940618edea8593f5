package dev.wirespeed.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ReadScratchTest {
    /** Empties every slot, so that a test starts cold and its set is the only one kept: {@return a new set} */
    private static ReadScratch cold() {
        ReadAllTest.emptyEverySlot();
        return ReadScratch.take();
    }

    @Test
    void chunksAreMadeInOrderAndKeptForTheNextTakeInTheSameThread() {
        ReadScratch set = cold();
        assertFalse(set.has(0));
        byte[] first = set.chunk(0);
        byte[] second = set.chunk(1);
        assertEquals(ReadScratch.CHUNK, first.length);
        assertNotSame(first, second);
        assertSame(first, set.chunk(0), "an existing chunk is not made again");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> set.chunk(3));
        assertEquals("chunk index=3 skips past allocated=2", e.getMessage());
        set.release(1, 0);
        ReadScratch again = ReadScratch.take();
        assertSame(set, again, "the set is kept in this thread's slot");
        assertSame(first, again.chunk(0));
        assertSame(second, again.chunk(1));
        again.release(-1, 0);
    }

    @Test
    void releaseClearsEveryUsedByteAndNoOther() {
        ReadScratch set = cold();
        for (int i = 0; i < 3; i++) {
            Arrays.fill(set.chunk(i), (byte) 7);
        }
        set.release(1, 100); // chunk 0 used whole, 100 bytes of chunk 1; chunk 2 not used by this call
        ReadScratch again = ReadScratch.take();
        assertSame(set, again);
        byte[] zeroChunk = new byte[ReadScratch.CHUNK];
        assertTrue(Arrays.equals(zeroChunk, again.chunk(0)), "chunk 0 cleared whole");
        assertTrue(Arrays.equals(again.chunk(1), 0, 100, zeroChunk, 0, 100), "chunk 1 cleared up to 100");
        assertEquals(7, again.chunk(1)[100], "past what was used: left as it was (the caller said it was not used)");
        // Clean up for the other tests: a set whose unused bytes are not zero must not stay in the slot.
        again.release(2, ReadScratch.CHUNK);
        assertTrue(Arrays.equals(zeroChunk, ReadScratch.take().chunk(1)));
    }

    @Test
    void releaseClearsTheUsedBytesOfAFirstChunkUsedInPart() {
        ReadScratch set = cold();
        Arrays.fill(set.chunk(0), (byte) 7);
        set.release(0, 100);
        ReadScratch again = ReadScratch.take();
        assertSame(set, again);
        assertTrue(Arrays.equals(again.chunk(0), 0, 100, new byte[100], 0, 100), "chunk 0 cleared up to 100");
        again.release(0, ReadScratch.CHUNK);
    }

    @Test
    void everyThreadsOwnSlotIsOneOfTheSlotsAndConsecutiveIdsSpreadOverAll() {
        Set<Integer> homes = new HashSet<>();
        for (long id = 1; id <= 1_000; id++) {
            int home = ReadScratch.home(id);
            assertTrue(home >= 0 && home < ReadScratch.SETS, "home=" + home + " of id=" + id + " SETS=" + ReadScratch.SETS);
            homes.add(home);
        }
        assertEquals(ReadScratch.SETS, homes.size(), "slots that are some id's home: " + homes);
    }

    @Test
    void aSetGivenBackGoesToItsThreadsOwnSlotWhereTheNextThreadOfThatSlotFindsItFirst() throws Exception {
        assumeTrue(ReadScratch.SETS >= 2, "one slot: every set is in it");
        ReadAllTest.emptyEverySlot();
        ReadScratch ofSlot1 = ReadScratch.take();
        ReadScratch ofSlot0 = ReadScratch.take();
        // Slot 1's first: had every thread slot 0 for its own, slot 0's set would land in slot 1.
        inThreadOfHome(1, () -> ofSlot1.release(-1, 0));
        inThreadOfHome(0, () -> ofSlot0.release(-1, 0));
        ReadScratch[] found = new ReadScratch[1];
        inThreadOfHome(0, () -> found[0] = ReadScratch.take());
        assertSame(ofSlot0, found[0], "slot 0's thread finds slot 0's set");
        found[0].release(-1, 0);
    }

    /** Runs {@code work} in a new platform thread whose own slot is {@code home}, and waits for it. */
    private static void inThreadOfHome(int home, Runnable work) throws InterruptedException {
        while (true) {
            Thread thread = Thread.ofPlatform().unstarted(work);
            if (ReadScratch.home(thread.threadId()) == home) {
                thread.start();
                assertTrue(thread.join(java.time.Duration.ofSeconds(20)), "thread of home " + home + " finished");
                return;
            }
        }
    }

    @Test
    void aSetGivenBackKeepsAtMostKeptChunks() {
        ReadScratch set = cold();
        for (int i = 0; i < ReadScratch.KEPT + 10; i++) {
            set.chunk(i);
        }
        set.release(ReadScratch.KEPT + 9, ReadScratch.CHUNK);
        ReadScratch again = ReadScratch.take();
        assertSame(set, again);
        assertTrue(again.has(ReadScratch.KEPT - 1));
        assertFalse(again.has(ReadScratch.KEPT), "chunks past KEPT are dropped");
        again.release(-1, 0);
    }

    @Test
    void asManySetsAsSlotsAreKeptAndTheNextIsDropped() {
        List<ReadScratch> out = new ArrayList<>();
        ReadAllTest.emptyEverySlot();
        for (int i = 0; i <= ReadScratch.SETS; i++) {
            out.add(ReadScratch.take()); // all new
        }
        for (ReadScratch set : out) {
            set.release(-1, 0); // SETS are kept, the last is dropped
        }
        Set<ReadScratch> taken = Collections.newSetFromMap(new IdentityHashMap<>());
        for (int i = 0; i <= ReadScratch.SETS; i++) {
            taken.add(ReadScratch.take());
        }
        assertEquals(ReadScratch.SETS + 1, taken.size());
        long kept = out.stream().filter(taken::contains).count();
        assertEquals(ReadScratch.SETS, kept, "the kept sets come back, from whatever slot, and one new one");
        assertFalse(taken.contains(out.get(ReadScratch.SETS)), "the one released into full slots was dropped");
        for (ReadScratch set : taken) {
            set.release(-1, 0);
        }
    }

    @Test
    void setsAreAPowerOfTwoAndBounded() {
        assertTrue(ReadScratch.SETS >= 1 && ReadScratch.SETS <= 8, "SETS=" + ReadScratch.SETS);
        assertEquals(1, Integer.bitCount(ReadScratch.SETS), "SETS=" + ReadScratch.SETS);
    }

    @Test
    void theProbeStartsEmptyForEveryReadAndKeepsNoByteOfTheLast() {
        ReadScratch set = cold();
        ByteBuffer body = ByteBuffer.allocate(10);
        ByteBuffer[] pair = set.bodyThenProbe(body);
        assertSame(body, pair[0]);
        assertEquals(1, pair[1].remaining());
        assertFalse(set.probed());
        pair[1].put((byte) 42);
        assertTrue(set.probed());
        set.release(-1, 0);
        ReadScratch again = ReadScratch.take();
        assertSame(set, again);
        ByteBuffer[] next = again.bodyThenProbe(ByteBuffer.allocate(3));
        assertFalse(again.probed(), "cleared for the next read");
        assertEquals(0, next[1].get(0), "the last file's byte is gone");
        again.release(-1, 0);
    }
}
