package dev.wirespeed.lab.env;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Waiting for this JVM's JIT to go quiet: bounded, and checked arguments. */
class JitTest {
    /** A clock that moves only when the wait pauses, by the pause; and the pauses taken. */
    private static final class Clock {
        long nanos = 1_000_000_000L;
        final List<Long> pauses = new ArrayList<>();

        void pause(long millis) {
            pauses.add(millis);
            nanos += TimeUnit.MILLISECONDS.toNanos(millis);
        }

        long millis(long since) {
            return TimeUnit.NANOSECONDS.toMillis(nanos - since);
        }
    }

    @Test
    void aWaitForQuietEndsAtTheFirstLookAtItsLimitWhileTheJitKeepsCompiling() throws Exception {
        Clock clock = new Clock();
        long start = clock.nanos;
        long[] compiled = {0};
        assertFalse(Jit.awaitQuiet(50, 2_000, () -> clock.nanos, () -> ++compiled[0], clock::pause));
        assertEquals(2_000, clock.millis(start), "looked last at the limit, not before it or a pause after it");
        assertEquals(200, clock.pauses.size(), "10 ms pauses: " + clock.pauses);
    }

    @Test
    void aWaitForQuietCountsTheQuietFromTheLastCompilation() throws Exception {
        Clock clock = new Clock();
        long start = clock.nanos;
        long[] looks = {0};
        // The JIT compiles until the fourth look (at 30 ms), then nothing: quiet for 50 ms at 80 ms.
        assertTrue(Jit.awaitQuiet(50, 2_000, () -> clock.nanos, () -> Math.min(++looks[0], 5), clock::pause));
        assertEquals(80, clock.millis(start));
    }

    @Test
    void aWaitForQuietAskedLessThanAPauseLooksThatOften() throws Exception {
        Clock clock = new Clock();
        long start = clock.nanos;
        assertTrue(Jit.awaitQuiet(3, 2_000, () -> clock.nanos, () -> 7, clock::pause));
        assertEquals(List.of(3L), clock.pauses);
        assertEquals(3, clock.millis(start));
    }

    @Test
    void aWaitOfNoTimeLooksOnceAndReturns() throws Exception {
        Clock clock = new Clock();
        long[] compiled = {0};
        assertFalse(Jit.awaitQuiet(10_000, 0, () -> clock.nanos, () -> ++compiled[0], clock::pause));
        assertEquals(List.of(), clock.pauses);
    }

    @Test
    void thisJvmsWaitReportsQuietOnlyAfterTheQuietItAsked() throws Exception {
        long start = System.nanoTime(); // before the wait reads its clock
        if (Jit.awaitQuiet(50, 2_000)) {
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(millis >= 50, "quiet after " + millis + " ms, less than the 50 ms asked");
        }
    }

    @Test
    void refusesAQuietOfNoTime() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Jit.awaitQuiet(0, 10));
        assertEquals("quietMillis=0 min=1, maxMillis=10 min=0", e.getMessage());
    }
}
