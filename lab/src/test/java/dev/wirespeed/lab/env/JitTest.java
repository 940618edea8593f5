package dev.wirespeed.lab.env;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Waiting for this JVM's JIT to go quiet: bounded, and checked arguments. */
class JitTest {
    @Test
    void aWaitForQuietEndsByItsLimitAndHasSeenTheQuietItReports() throws Exception {
        long start = System.nanoTime();
        boolean quiet = Jit.awaitQuiet(50, 2_000);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(millis <= 2_000 + 500, "waited " + millis + " ms past a 2,000 ms limit");
        if (quiet) {
            assertTrue(millis >= 50, "quiet after " + millis + " ms, less than the 50 ms asked");
        }
    }

    @Test
    void aWaitOfNoTimeReturnsAtOnce() throws Exception {
        long start = System.nanoTime();
        Jit.awaitQuiet(10_000, 0);
        assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) < 1_000);
    }

    @Test
    void refusesAQuietOfNoTime() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Jit.awaitQuiet(0, 10));
        assertEquals("quietMillis=0 min=1, maxMillis=10 min=0", e.getMessage());
    }
}
