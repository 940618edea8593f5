package dev.wirespeed.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;

/**
 * Checks the library's allocation claim the way it is made: nothing allocated per operation in the
 * steady state, that is once the JIT has compiled the path.
 *
 * <p>Warm-up operations first; then a wait until the JIT has compiled nothing for a while (on two CPUs
 * a pending C2 compilation can wait behind the two threads of an echo, which meanwhile run code
 * compiled without escape analysis: there the JDK's linker allocates a 40-byte slice of an errno capture
 * segment per down-call); then one bound over the measured operations: fewer bytes than operations.
 * Anything allocated per operation (16 bytes at least) breaks it; a recompilation that runs a few calls
 * through unoptimised code within the window does not.
 */
public final class SteadyState {
    /** Looked up once: each lookup walks the platform's beans, work the JIT would then compile. */
    private static final CompilationMXBean COMPILER = ManagementFactory.getCompilationMXBean();
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final long QUIET_MILLIS = 200;
    private static final long MAX_WAIT_MILLIS = 5_000;

    /** One operation of the path under test. */
    @FunctionalInterface
    public interface Operation {
        /**
         * Runs operation {@code i}.
         *
         * @param i its index, from 0 over warm-up and measured operations
         * @throws Exception if it fails: the check fails with it
         */
        void run(int i) throws Exception;
    }

    private SteadyState() {
    }

    /**
     * Runs {@code warm} operations, waits for the JIT to go quiet, runs {@code measured} more, and asserts
     * that {@code thread} allocated fewer bytes than {@code measured} over them.
     *
     * @param what the operation in words, for the failure message ("echoes")
     * @param threadId the thread whose allocation is measured (the caller's, or a loop it drives)
     * @param warm operations before measuring
     * @param measured operations measured
     * @param operation the operation
     * @throws Exception what an operation threw
     */
    public static void assertAllocatesNothingPerOperation(String what, long threadId, int warm, int measured,
            Operation operation) throws Exception {
        for (int i = 0; i < warm; i++) {
            operation.run(i);
        }
        boolean quiet = awaitQuietJit();
        long before = THREADS.getThreadAllocatedBytes(threadId);
        for (int i = warm; i < warm + measured; i++) {
            operation.run(i);
        }
        long allocated = THREADS.getThreadAllocatedBytes(threadId) - before;
        assertTrue(allocated < measured, allocated + " bytes allocated in " + measured + " " + what + " after "
                + warm + (quiet ? " and a quiet JIT" : " (the JIT still compiling after " + MAX_WAIT_MILLIS + " ms)")
                + ": " + (double) allocated / measured + " per operation, bound under 1");
    }

    /** {@return whether the JIT compiled nothing for {@link #QUIET_MILLIS} before {@link #MAX_WAIT_MILLIS} passed} */
    private static boolean awaitQuietJit() throws InterruptedException {
        if (COMPILER == null || !COMPILER.isCompilationTimeMonitoringSupported()) {
            return true;
        }
        long start = System.nanoTime();
        long quietSince = start;
        long compiled = COMPILER.getTotalCompilationTime();
        while (true) {
            Thread.sleep(10);
            long now = System.nanoTime();
            long total = COMPILER.getTotalCompilationTime();
            if (total != compiled) {
                compiled = total;
                quietSince = now;
            } else if (now - quietSince >= TimeUnit.MILLISECONDS.toNanos(QUIET_MILLIS)) {
                return true;
            }
            if (now - start >= TimeUnit.MILLISECONDS.toNanos(MAX_WAIT_MILLIS)) {
                return false;
            }
        }
    }
}
