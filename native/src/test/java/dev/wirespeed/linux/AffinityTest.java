package dev.wirespeed.linux;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.BitSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

@EnabledOnOs(value = OS.LINUX, disabledReason = "sched_setaffinity is Linux-only")
class AffinityTest {

    @Test
    void pinsTheCallingThreadToOneCpuAndRunsThere() throws Exception {
        BitSet allowed = Affinity.allowedCpus();
        int target = allowed.length() - 1;
        BitSet one = new BitSet();
        one.set(target);
        BitSet[] after = {null};
        int[] seen = {-1};
        Exception[] failure = {null};
        Thread thread = Thread.ofPlatform().start(() -> {
            try {
                Affinity.pinCurrentThread(one);
                after[0] = Affinity.allowedCpus();
                seen[0] = Affinity.currentCpu();
            } catch (Exception e) {
                failure[0] = e;
            }
        });
        thread.join();
        assertNull(failure[0]);
        assertEquals(one, after[0]);
        assertEquals(target, seen[0]);
        assertEquals(allowed, Affinity.allowedCpus(), "only the pinned thread changed");
    }

    @Test
    void reportsTheErrnoOfACpuThatDoesNotExist() {
        BitSet absent = new BitSet();
        absent.set(4000);
        NativeIoException e = assertThrows(NativeIoException.class, () -> Affinity.pinCurrentThread(absent));
        assertEquals("sched_setaffinity", e.call());
        assertEquals(22, e.errno());
        assertEquals("sched_setaffinity failed: errno=22 (Invalid argument) cpus={4000}", e.getMessage());
    }
}
