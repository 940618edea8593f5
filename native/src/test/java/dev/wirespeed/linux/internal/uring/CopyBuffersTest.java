package dev.wirespeed.linux.internal.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The buffers an io_uring poller's writes copy into: parts of one buffer for writes that fit, buffers
 * taken from the first slab with one free, and the later slabs given back once all their buffers have
 * been free for the unused time, the first kept.
 */
class CopyBuffersTest {
    private static final int SIZE = 4096;
    private static final long UNUSED = TimeUnit.SECONDS.toNanos(10);

    /** {@return {@code n} buffers filled whole, one write each} */
    private static List<CopyBuffers.CopyBuffer> fill(CopyBuffers copies, int n) {
        List<CopyBuffers.CopyBuffer> taken = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            CopyBuffers.CopyBuffer b = copies.bufferFor(SIZE);
            CopyBuffers.handed(b, SIZE);
            taken.add(b);
        }
        return taken;
    }

    @Test
    void writesThatFitShareTheBufferBeingFilledEachInItsOwnPart() {
        CopyBuffers copies = new CopyBuffers(SIZE, UNUSED);
        CopyBuffers.CopyBuffer first = copies.bufferFor(1000);
        CopyBuffers.handed(first, 1000);
        CopyBuffers.CopyBuffer second = copies.bufferFor(3000);
        assertSame(first, second, "3,000 bytes fit after 1,000 in 4,096");
        assertEquals(1000, second.used, "the second write's part begins where the first's ends");
        CopyBuffers.handed(second, 3000);
        CopyBuffers.CopyBuffer third = copies.bufferFor(100);
        assertNotSame(first, third, "100 bytes do not fit in the 96 left");
        CopyBuffers.handed(third, 100);
        assertEquals(2, copies.inUse());
        copies.returned(first);
        assertEquals(2, copies.inUse(), "one part of two sent: the buffer is still in use");
        copies.returned(first);
        assertEquals(1, copies.inUse(), "both parts sent: free");
        assertEquals(0, first.used);
        copies.returned(third);
        assertEquals(0, copies.inUse(), "the buffer being filled is free too once its parts are sent");
        copies.close();
    }

    @Test
    void laterSlabsAreGivenBackOnceUnusedForTheTimeAndTheFirstIsKept() {
        CopyBuffers copies = new CopyBuffers(SIZE, UNUSED);
        List<CopyBuffers.CopyBuffer> taken = fill(copies, 3 * CopyBuffers.PER_SLAB - 2); // slabs 0, 1 and 2
        assertEquals(3L * CopyBuffers.PER_SLAB * SIZE, copies.bytes());
        assertEquals(Long.MAX_VALUE, copies.trimAt(), "no slab has all its buffers free");
        long before = System.nanoTime();
        for (CopyBuffers.CopyBuffer b : taken.subList(CopyBuffers.PER_SLAB, taken.size() - 1)) {
            copies.returned(b); // all of slab 1, all but one of slab 2
        }
        long after = System.nanoTime();
        long at = copies.trimAt();
        assertTrue(at - (before + UNUSED) >= 0 && at - (after + UNUSED) <= 0, "slab 1 given back once unused for "
                + "10 s: trimAt=" + at + " between " + (before + UNUSED) + " and " + (after + UNUSED));
        copies.trim(at - 1);
        assertEquals(3L * CopyBuffers.PER_SLAB * SIZE, copies.bytes(), "kept until the unused time has passed");
        copies.trim(at);
        assertEquals(2L * CopyBuffers.PER_SLAB * SIZE, copies.bytes(), "slab 1 given back; slab 2 has a buffer out");
        copies.returned(taken.getLast());
        for (CopyBuffers.CopyBuffer b : taken.subList(0, CopyBuffers.PER_SLAB)) {
            copies.returned(b); // all of slab 0
        }
        assertEquals(0, copies.inUse());
        copies.trim(copies.trimAt());
        assertEquals((long) CopyBuffers.PER_SLAB * SIZE, copies.bytes(), "the first slab is kept");
        assertEquals(Long.MAX_VALUE, copies.trimAt());
        CopyBuffers.CopyBuffer again = copies.bufferFor(SIZE);
        assertTrue(taken.subList(0, CopyBuffers.PER_SLAB).contains(again), "taken from the first slab again");
        copies.close();
    }

    @Test
    void aBufferIsTakenFromTheFirstSlabWithOneFreeSoThatTheLaterOnesEmpty() {
        CopyBuffers copies = new CopyBuffers(SIZE, UNUSED);
        List<CopyBuffers.CopyBuffer> taken = fill(copies, 2 * CopyBuffers.PER_SLAB); // slabs 0 and 1, all out
        copies.returned(taken.get(3)); // one of slab 0
        copies.returned(taken.get(CopyBuffers.PER_SLAB + 5)); // one of slab 1
        assertSame(taken.get(3), copies.bufferFor(SIZE), "slab 0's, not slab 1's");
        copies.close();
    }

    @Test
    void noSlabIsGivenBackWhenTheUnusedTimeIsZero() {
        CopyBuffers copies = new CopyBuffers(SIZE, 0);
        List<CopyBuffers.CopyBuffer> taken = fill(copies, 2 * CopyBuffers.PER_SLAB);
        for (CopyBuffers.CopyBuffer b : taken) {
            copies.returned(b);
        }
        assertEquals(Long.MAX_VALUE, copies.trimAt());
        copies.trim(System.nanoTime() + TimeUnit.DAYS.toNanos(1));
        assertEquals(2L * CopyBuffers.PER_SLAB * SIZE, copies.bytes());
        copies.close();
    }
}
