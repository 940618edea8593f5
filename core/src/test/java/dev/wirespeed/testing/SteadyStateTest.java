package dev.wirespeed.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

/**
 * The allocation rule holds a path to exactly zero in most windows, on every thread it names: shown on
 * synthetic figures (where it holds and where it fails) and on live operations.
 */
class SteadyStateTest {
    /** Where allocations go, so that escape analysis cannot remove them. */
    static volatile Object sink;

    private static long[][] windows(long... loopBytes) {
        long[][] bytes = new long[loopBytes.length][];
        for (int w = 0; w < loopBytes.length; w++) {
            bytes[w] = new long[] {loopBytes[w], 0};
        }
        return bytes;
    }

    @Test
    void oneWindowInTenMayAllocateOnSomeThreadButNotTwo() {
        assertEquals(10, SteadyState.cleanWindows(windows(0, 0, 0, 0, 0, 0, 0, 0, 0, 0)));
        assertEquals(9, SteadyState.cleanWindows(windows(0, 0, 0, 0, 0, 48, 0, 0, 0, 0)));
        assertEquals(8, SteadyState.cleanWindows(windows(0, 0, 40, 0, 0, 0, 0, 0, 0, 1)));
        long[][] otherThread = windows(0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
        otherThread[3][1] = 16;
        otherThread[7][1] = 16;
        assertEquals(8, SteadyState.cleanWindows(otherThread));
        assertTrue(SteadyState.CLEAN_WINDOWS == 9 && SteadyState.WINDOWS == 10, "the rule the figures above follow");
    }

    @Test
    void onlyTenWindowsInARowWithoutACompilationAreAQuietStretch() {
        long[] compiling = new long[SteadyState.MAX_WINDOWS];
        assertEquals(-1, SteadyState.quietStretch(compiling, 9), "fewer than ten windows");
        assertEquals(0, SteadyState.quietStretch(compiling, 10));
        compiling[5] = 318;
        assertEquals(-1, SteadyState.quietStretch(compiling, 10));
        assertEquals(-1, SteadyState.quietStretch(compiling, 15), "window 5 is among the last ten");
        assertEquals(6, SteadyState.quietStretch(compiling, 16));
    }

    @Test
    void theTableHasALinePerWindowWithEachThreadsBytesAndTheJitsTime() {
        long[][] bytes = {{0, 0}, {48, 16}};
        assertEquals("window | loop-0 bytes | main bytes | JIT ms\n0 | 0 | 0 | 0\n1 | 48 | 16 | 3\n",
                SteadyState.table(List.of("loop-0", "main"), bytes, new long[] {0, 3}));
    }

    @Test
    void anOperationThatAllocatesNothingPasses() throws Exception {
        long[] sum = {0};
        SteadyState.assertAllocatesNothingPerOperation("sums", List.of(Thread.currentThread()), 0, i -> sum[0] += i);
        assertTrue(sum[0] > 0);
    }

    @Test
    void anAllocationOnceInEveryWindowFailsTheCheckWithEachWindowsBytes() {
        AssertionFailedError e = assertThrows(AssertionFailedError.class,
                () -> SteadyState.assertAllocatesNothingPerOperation("sparse allocations", List.of(Thread.currentThread()),
                        0, i -> {
                            if (i % SteadyState.WINDOW == 1) {
                                sink = new long[2]; // 32 bytes
                            }
                        }));
        String message = e.getMessage();
        assertTrue(message.startsWith("sparse allocations: 0 of 10 windows of 10000 operations (windows "), message);
        assertTrue(message.contains(") allocated 0 bytes on every thread of [" + Thread.currentThread().getName()
                + "] (at least 9 must)"), message);
        // 32 bytes a window, and once in a while a few more where the JIT was at work.
        assertTrue(message.contains("window | " + Thread.currentThread().getName() + " bytes | JIT ms\n0 | "), message);
        assertTrue(message.contains("\n9 | "), message);
    }

    @Test
    void anAllocationOnAnotherMeasuredThreadFailsTheCheck() throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger request = new AtomicInteger(-1);
        AtomicInteger done = new AtomicInteger(-1);
        // Allocates once for each request, handed over without allocating on either side.
        Thread helper = Thread.ofPlatform().name("allocating").start(() -> {
            int seen = -1;
            while (!stop.get()) {
                int r = request.get();
                if (r != seen) {
                    sink = new long[2];
                    seen = r;
                    done.set(r);
                } else {
                    Thread.onSpinWait();
                }
            }
        });
        try {
            AssertionFailedError e = assertThrows(AssertionFailedError.class,
                    () -> SteadyState.assertAllocatesNothingPerOperation("requests", List.of(Thread.currentThread(), helper),
                            0, i -> {
                                if (i % SteadyState.WINDOW == 5) {
                                    request.set(i);
                                    while (done.get() != i) {
                                        Thread.onSpinWait();
                                    }
                                }
                            }));
            String message = e.getMessage();
            assertTrue(message.startsWith("requests: 0 of 10 windows"), message);
            assertTrue(message.contains("window | " + Thread.currentThread().getName() + " bytes | allocating bytes | JIT ms\n"),
                    message);
        } finally {
            stop.set(true);
            helper.join();
        }
    }
}
