package dev.wirespeed.testing;

import static org.junit.jupiter.api.Assertions.fail;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Checks the library's allocation claim the way it is made: nothing allocated per operation in the
 * steady state, that is once the JIT has compiled the path, on every thread the claim is about.
 *
 * <p>The rule: warm-up operations, at least {@value #WARM_CALLS} calls of {@value #CHUNK}; then a wait
 * until the JIT has finished no compilation for {@value #QUIET_MILLIS} ms (a JIT still compiling after
 * {@value #MAX_WAIT_MILLIS} ms fails the check: the steady state was never reached); then
 * {@value #WINDOWS} consecutive windows of {@value #WINDOW} operations each, the bytes of each window
 * read on each thread. At least {@value #CLEAN_WINDOWS} of them must allocate exactly 0 bytes on every
 * thread. One window may allocate: a recompilation or a deoptimisation can run a few operations through
 * code compiled without escape analysis (where, for instance, the JDK's linker allocates a 40-byte slice
 * of an errno capture segment per down-call), once; a path that allocates per operation, even once in
 * ten thousand, allocates in every window. The JIT may still be at work when the windows begin (its
 * quiet is seen only between compilations that finish, and the windows' own operations can set off
 * more): where the first {@value #WINDOWS} windows fail and the JIT compiled in some of them, windows go
 * on, up to {@value #MAX_WINDOWS}, until {@value #WINDOWS} in a row pass without a compilation, and
 * those are judged by the same rule; a JIT that never stops that long fails the check. The failure
 * message lists each window's bytes per thread and the JIT's compilation time in it.
 *
 * <p>Why the warm-up runs in calls of {@value #CHUNK}: the loop that runs a window is a method of its
 * own; called only a few times, HotSpot compiles it by on-stack replacement in the middle of a window,
 * and the window in which the thread enters that compilation shows bytes no Java allocation accounts
 * for (48, on JDK 25). Called more often than its {@code Tier4InvocationThreshold} (5,000), it is
 * compiled whole before the windows run. Such bytes still show, rarely, in one of the first windows.
 *
 * <p>The check refuses to measure in a JVM where an agent instruments classes ({@link JvmAgents}).
 */
public final class SteadyState {
    /** Operations per measured window. */
    public static final int WINDOW = 10_000;
    /** Measured windows. */
    public static final int WINDOWS = 10;
    /** Windows that must allocate 0 bytes on every measured thread. */
    public static final int CLEAN_WINDOWS = 9;
    /**
     * Windows measured at most: where the first {@value #WINDOWS} fail while the JIT compiles in some of
     * them, the check goes on until {@value #WINDOWS} windows in a row pass without a compilation, and
     * judges those.
     */
    public static final int MAX_WINDOWS = 40;

    /** Looked up once: each lookup walks the platform's beans, work the JIT would then compile. */
    private static final CompilationMXBean COMPILER = ManagementFactory.getCompilationMXBean();
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    /** Operations per call of the loop during warm-up. */
    private static final int CHUNK = 10;
    /** Calls of the loop during warm-up at least: see the class comment. */
    private static final int WARM_CALLS = 6_000;
    private static final long QUIET_MILLIS = 200;
    private static final long MAX_WAIT_MILLIS = 30_000;

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
     * Runs {@code warm} operations (at least {@value #WARM_CALLS} * {@value #CHUNK}), waits for the JIT to
     * go quiet, runs {@link #WINDOWS} windows of {@link #WINDOW} operations, and asserts that at least
     * {@link #CLEAN_WINDOWS} of them allocated 0 bytes on each of {@code threads}.
     *
     * @param what the operation in words, for the failure message ("echoes")
     * @param threads the threads the claim is about: the caller's, a loop it drives, both; each alive
     *     until the check returns
     * @param warm operations before measuring
     * @param operation the operation; when it returns, the measured threads have done its work
     * @throws Exception what an operation threw
     */
    public static void assertAllocatesNothingPerOperation(String what, List<Thread> threads, int warm,
            Operation operation) throws Exception {
        JvmAgents.instrumenting().ifPresent(agents -> fail(what + ": allocation is not measured under " + agents));
        if (threads.isEmpty()) {
            throw new IllegalArgumentException("no thread to measure");
        }
        long[] ids = threads.stream().mapToLong(Thread::threadId).toArray();
        int i = 0;
        while (i < Math.max(warm, WARM_CALLS * CHUNK)) {
            i = run(operation, i, CHUNK);
        }
        int warmed = i;
        long waited = awaitQuietJit();
        if (waited < 0) {
            fail(what + ": the JIT was still compiling " + MAX_WAIT_MILLIS + " ms after " + warmed
                    + " warm-up operations (no " + QUIET_MILLIS + " ms without a compilation): no steady state to measure");
        }
        long[][] bytes = new long[MAX_WINDOWS][ids.length];
        long[] compiling = new long[MAX_WINDOWS];
        long[] before = new long[ids.length];
        int measured = 0;
        int from = 0; // the first of the windows judged
        while (true) {
            long compiledBefore = COMPILER.getTotalCompilationTime();
            read(ids, before);
            i = run(operation, i, WINDOW);
            read(ids, bytes[measured]);
            for (int t = 0; t < ids.length; t++) {
                bytes[measured][t] -= before[t];
            }
            compiling[measured] = COMPILER.getTotalCompilationTime() - compiledBefore;
            measured++;
            if (measured == WINDOWS && cleanWindows(Arrays.copyOfRange(bytes, 0, WINDOWS)) >= CLEAN_WINDOWS) {
                break; // the usual case: the first windows are the steady state
            }
            if (measured >= WINDOWS) {
                from = quietStretch(compiling, measured);
                if (from >= 0 || measured == MAX_WINDOWS) {
                    break;
                }
            }
        }
        List<String> names = threads.stream().map(Thread::getName).toList();
        long[][] judged = from < 0 ? new long[0][] : Arrays.copyOfRange(bytes, from, from + WINDOWS);
        String verdict = what + ": " + cleanWindows(judged) + " of " + WINDOWS + " windows of " + WINDOW
                + " operations (windows " + from + " to " + (from + WINDOWS - 1) + ") allocated 0 bytes on every "
                + "thread of " + names + " (at least " + CLEAN_WINDOWS + " must), after " + warmed
                + " warm-up operations and a JIT quiet within " + waited + " ms";
        String windows = "\n" + table(names, Arrays.copyOf(bytes, measured), Arrays.copyOf(compiling, measured));
        if (from < 0) {
            fail(what + ": the JIT compiled in every " + WINDOWS + " windows in a row of " + measured + " ("
                    + WINDOW + " operations each) after " + warmed + " warm-up operations: no steady state to "
                    + "measure" + windows);
        }
        if (cleanWindows(judged) < CLEAN_WINDOWS) {
            fail(verdict + windows);
        }
        System.out.println("SteadyState " + verdict);
    }

    /**
     * {@return the first of the last {@value #WINDOWS} of {@code measured} windows if the JIT compiled
     * nothing in any of them, else -1}: where the first windows allocated while the JIT was still at work
     * on the path, the windows after it finished are the steady state
     */
    static int quietStretch(long[] compiling, int measured) {
        if (measured < WINDOWS) {
            return -1;
        }
        for (int w = measured - WINDOWS; w < measured; w++) {
            if (compiling[w] != 0) {
                return -1;
            }
        }
        return measured - WINDOWS;
    }

    /** {@return the windows in which no thread allocated: {@code bytes[window][thread]}} */
    static int cleanWindows(long[][] bytes) {
        int clean = 0;
        for (long[] window : bytes) {
            boolean none = true;
            for (long b : window) {
                none &= b == 0;
            }
            clean += none ? 1 : 0;
        }
        return clean;
    }

    /**
     * The form of {@link #assertAllocatesNothingPerOperation(String, List, int, Operation)} for one
     * thread, by id; {@code measured} is not used (the windows are fixed), and is kept only so that its
     * callers compile until they move to the list form.
     *
     * @param what the operation in words
     * @param threadId the measured thread, alive
     * @param warm operations before measuring
     * @param measured not used
     * @param operation the operation
     * @throws Exception what an operation threw
     */
    public static void assertAllocatesNothingPerOperation(String what, long threadId, int warm, int measured,
            Operation operation) throws Exception {
        Thread thread = Thread.getAllStackTraces().keySet().stream().filter(t -> t.threadId() == threadId).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no live thread has id " + threadId));
        assertAllocatesNothingPerOperation(what, List.of(thread), warm, operation);
    }

    /** Runs operations {@code from} to {@code from + count - 1}; {@return the next index} */
    private static int run(Operation operation, int from, int count) throws Exception {
        int end = from + count;
        for (int i = from; i < end; i++) {
            operation.run(i);
        }
        return end;
    }

    /** Reads each thread's allocated bytes into {@code into}; allocates nothing (the JDK's single-id reads do not). */
    private static void read(long[] ids, long[] into) {
        for (int t = 0; t < ids.length; t++) {
            long b = THREADS.getThreadAllocatedBytes(ids[t]);
            if (b < 0) {
                throw new IllegalStateException("thread id=" + ids[t] + " ended, or allocation counting is off");
            }
            into[t] = b;
        }
    }

    /** {@return {@code bytes[window][thread]} and {@code compiling[window]} as a table, a line per window} */
    static String table(List<String> threads, long[][] bytes, long[] compiling) {
        StringBuilder s = new StringBuilder("window");
        for (String thread : threads) {
            s.append(" | ").append(thread).append(" bytes");
        }
        s.append(" | JIT ms\n");
        for (int w = 0; w < bytes.length; w++) {
            s.append(w);
            for (long b : bytes[w]) {
                s.append(" | ").append(b);
            }
            s.append(" | ").append(compiling[w]).append('\n');
        }
        return s.toString();
    }

    /**
     * {@return the milliseconds waited until the JIT compiled nothing for {@link #QUIET_MILLIS}, or -1 if
     * {@link #MAX_WAIT_MILLIS} passed first}
     */
    private static long awaitQuietJit() throws InterruptedException {
        if (COMPILER == null || !COMPILER.isCompilationTimeMonitoringSupported()) {
            fail("this JVM does not say when its JIT compiles (" + System.getProperty("java.vm.name")
                    + "): a steady state cannot be told apart from a cold one");
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
                return TimeUnit.NANOSECONDS.toMillis(now - start);
            }
            if (now - start >= TimeUnit.MILLISECONDS.toNanos(MAX_WAIT_MILLIS)) {
                return -1;
            }
        }
    }
}
