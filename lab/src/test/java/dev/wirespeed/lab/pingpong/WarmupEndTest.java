package dev.wirespeed.lab.pingpong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** When a ping's warm-up ends: its least length, then the JIT's quiet, within its longest. */
class WarmupEndTest {
    private static final long MS = 1_000_000;

    @Test
    void withoutAQuietTimeTheEndIsKnownFromTheStart() {
        WarmupEnd end = new WarmupEnd(200 * MS, 0).begin(-50 * MS);
        assertTrue(end.known());
        assertEquals(150 * MS, end.look(0, 7));
        assertFalse(end.settledByJit());
    }

    @Test
    void endsAtTheFirstLookThatFindsTheJitIdleForTheQuietTime() {
        WarmupEnd end = new WarmupEnd(100 * MS, 50 * MS).begin(0);
        assertEquals(90 * MS + WarmupEnd.UNKNOWN, end.look(90 * MS, 1), "before its least length");
        assertEquals(100 * MS + WarmupEnd.UNKNOWN, end.look(100 * MS, 5), "the first mark");
        assertEquals(140 * MS + WarmupEnd.UNKNOWN, end.look(140 * MS, 5), "idle for 40 ms only");
        assertEquals(145 * MS + WarmupEnd.UNKNOWN, end.look(145 * MS, 6), "compiled again: a new mark");
        assertEquals(190 * MS + WarmupEnd.UNKNOWN, end.look(190 * MS, 6));
        assertFalse(end.known());
        assertEquals(195 * MS, end.look(195 * MS, 6), "idle for 50 ms");
        assertTrue(end.known());
        assertTrue(end.settledByJit());
        assertEquals(195 * MS, end.look(900 * MS, 9), "the end, once known, stays");
    }

    @Test
    void aJitThatNeverRestsEndsTheWarmUpAtItsLongest() {
        WarmupEnd end = new WarmupEnd(100 * MS, 50 * MS).begin(0);
        long compiled = 0;
        for (long now = 100 * MS; now < WarmupEnd.MAX_FACTOR * 150 * MS; now += 10 * MS) {
            assertEquals(now + WarmupEnd.UNKNOWN, end.look(now, compiled++), "at " + now / MS + " ms");
        }
        assertEquals(WarmupEnd.MAX_FACTOR * 150 * MS, end.look(WarmupEnd.MAX_FACTOR * 150 * MS, compiled));
        assertFalse(end.settledByJit(), "the JIT was still compiling");
    }

    @Test
    void onlyDifferencesOfTheClockCount() {
        long start = Long.MAX_VALUE - 10 * MS; // nanoTime wraps 20 ms into the warm-up
        WarmupEnd end = new WarmupEnd(20 * MS, 5 * MS).begin(start);
        long later = start + 25 * MS; // wrapped: negative
        assertTrue(later < 0);
        end.look(start + 20 * MS, 3);
        assertEquals(later, end.look(later, 3));
    }

    @Test
    void lengthsOutOfRangeAreRefusedNamingThem() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new WarmupEnd(-1, 0));
        assertEquals("minNanos=-1 must be 0 to 2^60 and quietNanos=0 0 to 2^56", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new WarmupEnd(0, 1L << 56));
    }

    @Test
    void theClockStartsOnceAndOnlyBeforeTheFirstLook() {
        WarmupEnd end = new WarmupEnd(10 * MS, 0);
        IllegalStateException early = assertThrows(IllegalStateException.class, () -> end.look(5, 0));
        assertEquals("look before begin: now=5", early.getMessage());
        assertFalse(end.known(), "not known before it begins");
        end.begin(100 * MS);
        assertEquals(110 * MS, end.look(0, 0));
        IllegalStateException twice = assertThrows(IllegalStateException.class, () -> end.begin(200 * MS));
        assertEquals("the warm-up began already, at " + 100 * MS, twice.getMessage());
    }
}
